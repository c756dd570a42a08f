import Router from '@koa/router';
import type { Context } from 'koa';
import { caller, type RegistryRouteDeps } from '../route-helpers';
import { ROOT } from '../../http/route-table';
import { Urls } from '../../http/urls';
import { AnswerMemo } from '../../http/answer-memo';
import { NotFoundError } from '../../lib/errors';
import { catalogDocument, isLegacyVagrant } from './catalog';
import { prefersPage } from './negotiate';

export interface CatalogRouteDeps extends RegistryRouteDeps {
  /** Answers the web UI's page with a status; the page shows a browser the box (ui/static.ts uiPage). */
  uiPage(ctx: Context, status: number): Promise<void>;
}

/**
 * The catalog `vagrant box add ORG/BOX` reads: `/ORG/BOX` (every vagrant) and
 * `/api/v2/vagrant/ORG/BOX` (tried first by vagrant ≥ 2.4). HEAD must carry
 * `Content-Type: application/json` too, or vagrant takes the URL for a box file.
 * A browser at `/ORG/BOX` gets the UI's page instead, which shows the box; both answers say
 * `Vary: Accept` so that no cache hands one to the other.
 * Mount last: `/:org/:box` matches any two-segment path.
 */
export function catalogRoutes(deps: CatalogRouteDeps): Router {
  const r = new Router();
  const answers = new AnswerMemo();
  const serve = async (ctx: Context) => {
    const { org, box } = ctx.params as { org: string; box: string };
    const detail = await deps.registry.catalog(caller(ctx), { username: org, box });
    const urls = Urls.of(ctx, deps.config.publicUrl);
    const opts = {
      legacy: isLegacyVagrant(ctx.get('user-agent')),
      // Set by the pull-through cache when its upstream cannot be reached for this request.
      heldOnly: ctx.state.catalogHeldOnly === true,
    };
    // A box from the read caches is the same frozen objects until it changes: its catalog is serialized once per
    // variant.
    const variant = `${urls.base} ${org}/${box} ${opts.legacy} ${opts.heldOnly}`;
    answers.send(ctx, [detail.box, detail.versions], variant, () =>
      catalogDocument(`${org}/${box}`, detail, urls, opts),
    );
  };
  // The page is the same for every box; its status says whether this caller may see the box.
  const page = async (ctx: Context) => {
    const { org, box } = ctx.params as { org: string; box: string };
    const found = await deps.registry.access.box(caller(ctx), { username: org, box }, 'read').then(
      () => true,
      (e: unknown) => {
        if (e instanceof NotFoundError) return false;
        throw e;
      },
    );
    await deps.uiPage(ctx, found ? 200 : 404);
  };
  // @koa/router answers HEAD with the GET route (Koa then drops the body, keeping the headers).
  r.get(ROOT.catalogV2.path, serve);
  r.get(ROOT.catalog.path, (ctx) => {
    ctx.vary('Accept');
    return prefersPage(ctx) ? page(ctx) : serve(ctx);
  });
  return r;
}
