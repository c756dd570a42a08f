import Router from '@koa/router';
import { z } from 'zod';
import { BOXYARD } from '../http/route-table';
import { queryValue } from '../http/params';
import { validated } from '../http/validate';
import { requireUser } from '../auth/middleware';
import type { Config } from '../config';
import type { BoxListAnswer } from '../contract/wire/box-list';
import { caller, linksFor } from '../registry/route-helpers';
import { SearchFields, withDefaultOrder } from '../registry/schemas';
import { boxSummaryJson } from '../registry/serialize';
import type { RegistryService } from '../registry/service';

export interface BoxListRouteDeps {
  registry: Pick<RegistryService, 'boxList'>;
  config: Pick<Config, 'publicUrl'>;
}

/** `GET /search`'s parameters, and `mine=true` for the caller's own namespaces. */
const BoxListQuery = SearchFields.extend({
  mine: queryValue(z.enum(['true', 'false'], { message: 'mine must be true or false' }).default('false')).transform(
    (v) => v === 'true',
  ),
}).transform(withDefaultOrder);

/**
 * The web UI's box list (under /api/boxyard): one page per request, whatever the number of boxes.
 * Anyone gets the page of what `GET /search` finds for them (the public catalogue, for a visitor
 * who is not signed in); `mine=true` pages the boxes of the caller's own namespaces, released or
 * not, which search never lists. `next_page` says whether there is more: `GET /search` may carry
 * no key but `boxes` (vagrant_cloud 3.0.5).
 */
export function boxListRoutes(deps: BoxListRouteDeps): Router {
  const r = new Router();
  r.get(
    BOXYARD.boxes.path,
    validated({ query: BoxListQuery }, async (ctx, { query }) => {
      const p = query.mine ? requireUser(ctx) : caller(ctx);
      const { boxes, more } = await deps.registry.boxList(p, query);
      const links = linksFor(ctx, deps.config);
      ctx.body = {
        boxes: boxes.map((b) => boxSummaryJson(b, links)),
        page: query.page,
        next_page: more ? query.page + 1 : null,
      } satisfies BoxListAnswer;
    }),
  );
  return r;
}
