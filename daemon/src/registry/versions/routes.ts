import type Router from '@koa/router';
import type { Context } from 'koa';
import { requirePublisher } from '../../auth/middleware';
import { validated } from '../../http/validate';
import { BOX } from '../../http/route-table';
import { versionJson } from '../serialize';
import { BoxParams, CreateVersionBody, UpdateVersionBody, VersionParams } from '../schemas';
import { caller, linksFor, type RegistryRouteDeps } from '../route-helpers';
import type { VersionResult } from './service';

const ref = (p: { username: string; name: string; version?: string }) => ({
  username: p.username,
  box: p.name,
  version: p.version ?? '',
});

/** Versions and their release/revoke operations; each answers the version JSON. */
export function versionRoutes(r: Router, deps: RegistryRouteDeps) {
  const svc = deps.registry.versions;
  const json = (ctx: Context, v: VersionResult) => versionJson(v.box, v.version, linksFor(ctx, deps.config));

  r.post(
    BOX.versions.path,
    validated({ params: BoxParams, body: CreateVersionBody }, async (ctx, { params, body }) => {
      ctx.body = json(ctx, await svc.create(requirePublisher(ctx), ref(params), body));
    }),
  );
  r.get(
    BOX.version.path,
    validated({ params: VersionParams }, async (ctx, { params }) => {
      ctx.body = json(ctx, await svc.get(caller(ctx), ref(params)));
    }),
  );
  r.put(
    BOX.version.path,
    validated({ params: VersionParams, body: UpdateVersionBody }, async (ctx, { params, body }) => {
      ctx.body = json(ctx, await svc.update(requirePublisher(ctx), ref(params), body));
    }),
  );
  r.delete(
    BOX.version.path,
    validated({ params: VersionParams }, async (ctx, { params }) => {
      ctx.body = json(ctx, await svc.delete(requirePublisher(ctx), ref(params)));
    }),
  );
  r.put(
    BOX.release.path,
    validated({ params: VersionParams }, async (ctx, { params }) => {
      ctx.body = json(ctx, await svc.release(requirePublisher(ctx), ref(params)));
    }),
  );
  r.put(
    BOX.revoke.path,
    validated({ params: VersionParams }, async (ctx, { params }) => {
      ctx.body = json(ctx, await svc.revoke(requirePublisher(ctx), ref(params)));
    }),
  );
}
