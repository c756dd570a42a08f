import type Router from '@koa/router';
import type { Context } from 'koa';
import { requirePublisher } from '../../auth/middleware';
import { validated } from '../../http/validate';
import { BOX } from '../../http/route-table';
import { providerJson } from '../serialize';
import { CreateProviderBody, ProviderParams, UpdateProviderBody, VersionParams } from '../schemas';
import { architectureParam, caller, linksFor, providerRefOf, type RegistryRouteDeps } from '../route-helpers';
import type { ProviderResult } from './service';

const versionRef = (p: { username: string; name: string; version: string }) => ({
  username: p.username,
  box: p.name,
  version: p.version,
});

/**
 * Providers. API v1 paths name only the provider (its default-architecture entry); API v2 paths
 * add the architecture. Both shapes are served under both prefixes.
 */
export function providerRoutes(r: Router, deps: RegistryRouteDeps) {
  const svc = deps.registry.providers;
  const json = (ctx: Context, v: ProviderResult) =>
    providerJson(v.box, v.version, v.provider, linksFor(ctx, deps.config));
  r.param('arch', architectureParam);

  r.post(
    BOX.providers.path,
    validated({ params: VersionParams, body: CreateProviderBody }, async (ctx, { params, body }) => {
      ctx.body = json(ctx, await svc.create(requirePublisher(ctx), versionRef(params), body));
    }),
  );

  for (const { path } of [BOX.provider, BOX.providerArch]) {
    r.get(
      path,
      validated({ params: ProviderParams }, async (ctx, { params }) => {
        ctx.body = json(ctx, await svc.get(caller(ctx), providerRefOf(ctx, params)));
      }),
    );
    r.put(
      path,
      validated({ params: ProviderParams, body: UpdateProviderBody }, async (ctx, { params, body }) => {
        ctx.body = json(ctx, await svc.update(requirePublisher(ctx), providerRefOf(ctx, params), body));
      }),
    );
    r.delete(
      path,
      validated({ params: ProviderParams }, async (ctx, { params }) => {
        ctx.body = json(ctx, await svc.delete(requirePublisher(ctx), providerRefOf(ctx, params)));
      }),
    );
  }
}
