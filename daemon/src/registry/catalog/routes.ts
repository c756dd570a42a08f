import Router from '@koa/router';
import type { Context } from 'koa';
import { caller, type RegistryRouteDeps } from '../route-helpers';
import { ROOT } from '../../http/route-table';
import { Urls } from '../../http/urls';
import { catalogDocument, isLegacyVagrant } from './catalog';

/**
 * The catalog `vagrant box add ORG/BOX` reads: `/ORG/BOX` (every vagrant) and
 * `/api/v2/vagrant/ORG/BOX` (tried first by vagrant ≥ 2.4). HEAD must carry
 * `Content-Type: application/json` too, or vagrant takes the URL for a box file.
 * Mount last: `/:org/:box` matches any two-segment path.
 */
export function catalogRoutes(d: RegistryRouteDeps): Router {
  const r = new Router();
  const serve = async (ctx: Context) => {
    const { org, box } = ctx.params as { org: string; box: string };
    const detail = await d.registry.catalog(caller(ctx), { username: org, box });
    ctx.type = 'application/json';
    ctx.body = catalogDocument(`${org}/${box}`, detail, Urls.of(ctx, d.config.publicUrl), {
      legacy: isLegacyVagrant(ctx.get('user-agent')),
      // Set by the pull-through cache when its upstream cannot be reached for this request.
      heldOnly: ctx.state.catalogHeldOnly === true,
    });
  };
  // @koa/router answers HEAD with the GET route (Koa then drops the body, keeping the headers).
  for (const route of [ROOT.catalogV2, ROOT.catalog]) r.get(route.path, serve);
  return r;
}
