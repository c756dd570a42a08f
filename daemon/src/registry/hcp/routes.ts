import Router from '@koa/router';
import type { Context } from 'koa';
import { requirePublisher } from '../../auth/middleware';
import { validated } from '../../http/validate';
import { HCP } from '../../http/route-table';
import { caller } from '../route-helpers';
import type { VersionResult } from '../versions/service';
import {
  HcpBoxParams,
  HcpCreateBox,
  HcpCreateProvider,
  HcpCreateVersion,
  HcpProviderParams,
  HcpVersionParams,
  RegistryParams,
} from './schemas';
import { createdOperation, hcpBox, hcpProvider, hcpVersion } from './serialize';
import { architectureRoutes } from './architecture-routes';
import { boxRef, entriesOf, type HcpRouteDeps, urlsOf, versionRef } from './refs';

/**
 * HCP's Vagrant registry API (2022-09-30), the calls Packer's vagrant-registry makes, over the same services,
 * rights and rows as the Vagrant Cloud API: `{registry}` is a user or organization. Every success is exactly 200.
 */
export function hcpRegistryRoutes(deps: HcpRouteDeps): Router {
  const r = new Router();
  const reg = deps.registry;
  const version = (ctx: Context, v: VersionResult) => ({ version: hcpVersion(v.box, v.version, urlsOf(ctx, deps)) });

  r.get(
    HCP.box.path,
    validated({ params: HcpBoxParams }, async (ctx, { params }) => {
      ctx.body = { box: hcpBox(await reg.box(caller(ctx), boxRef(params)), urlsOf(ctx, deps)) };
    }),
  );
  r.post(
    HCP.boxes.path,
    validated({ params: RegistryParams, body: HcpCreateBox }, async (ctx, { params, body }) => {
      const detail = await reg.createBox(requirePublisher(ctx), {
        username: params.registry,
        name: body.name,
        description: body.description,
        short_description: body.short_description,
        is_private: body.is_private ?? false,
      });
      // Packer waits for the operation (it crashes without its location): the box is made before this answer.
      ctx.body = { box: hcpBox(detail, urlsOf(ctx, deps)), operation: createdOperation(detail.box) };
    }),
  );

  r.get(
    HCP.version.path,
    validated({ params: HcpVersionParams }, async (ctx, { params }) => {
      ctx.body = version(ctx, await reg.versions.get(caller(ctx), versionRef(params)));
    }),
  );
  r.post(
    HCP.versions.path,
    validated({ params: HcpBoxParams, body: HcpCreateVersion }, async (ctx, { params, body }) => {
      const input = { version: body.name, description: body.description };
      ctx.body = version(ctx, await reg.versions.create(requirePublisher(ctx), boxRef(params), input));
    }),
  );
  r.put(
    HCP.release.path,
    validated({ params: HcpVersionParams }, async (ctx, { params }) => {
      ctx.body = version(ctx, await reg.versions.release(requirePublisher(ctx), versionRef(params)));
    }),
  );

  r.get(
    HCP.provider.path,
    validated({ params: HcpProviderParams }, async (ctx, { params }) => {
      const v = await reg.versions.get(caller(ctx), versionRef(params));
      ctx.body = { provider: hcpProvider(v.box, v.version.version, entriesOf(v, params.provider), urlsOf(ctx, deps)) };
    }),
  );
  /*
   * A provider is a name over its architectures; Boxyard keeps an entry per name and architecture. Until its first
   * architecture comes, the name is an entry of architecture "unknown" with no file, as the Vagrant Cloud API v1 makes
   * one: HCP's first architecture takes it over (architecture-routes.ts).
   */
  r.post(
    HCP.providers.path,
    validated({ params: HcpVersionParams, body: HcpCreateProvider }, async (ctx, { params, body }) => {
      const made = await reg.providers.create(requirePublisher(ctx), versionRef(params), { name: body.name });
      ctx.body = { provider: hcpProvider(made.box, made.version, [made.provider], urlsOf(ctx, deps)) };
    }),
  );

  architectureRoutes(r, deps);
  return r;
}
