import Router from '@koa/router';
import type { Context } from 'koa';
import { requirePublisher } from '../auth/middleware';
import { validated } from '../http/validate';
import { BOX } from '../http/route-table';
import { AnswerMemo } from '../http/answer-memo';
import { boxJson, boxSummaryJson, descriptionHtml } from './serialize';
import { BoxParams, CreateBoxBody, SearchQuery, UpdateBoxBody, UserParams } from './schemas';
import { caller, linksFor, type RegistryRouteDeps } from './route-helpers';
import type { BoxDetail } from './details';
import { versionRoutes } from './versions/routes';
import { providerRoutes } from './providers/routes';

/** Stands for a hit without a released version in a kept answer's sources. */
const NO_VERSION = Object.freeze({});

/** The box registry API (users, search, boxes, versions, providers), mounted under /api/v1 and /api/v2. */
export function registryRoutes(deps: RegistryRouteDeps): Router {
  const r = new Router();
  const box = (ctx: Context, detail: BoxDetail) => boxJson(detail, linksFor(ctx, deps.config));
  const answers = new AnswerMemo();

  r.get(
    BOX.user.path,
    validated({ params: UserParams }, async (ctx, { params }) => {
      const { ns, boxes } = await deps.registry.profile(caller(ctx), params.username);
      const links = linksFor(ctx, deps.config);
      const profile = ns.kind === 'user' ? ns.user.profile_markdown : ns.organization.profile_markdown;
      ctx.body = {
        username: ns.name,
        avatar_url: null,
        profile_html: descriptionHtml(profile),
        profile_markdown: profile,
        boxes: boxes.map((b) => boxSummaryJson(b, links)),
      };
    }),
  );

  r.get(
    BOX.search.path,
    validated({ query: SearchQuery }, async (ctx, { query }) => {
      const hits = await deps.registry.search(caller(ctx), query);
      const links = linksFor(ctx, deps.config);
      // vagrant_cloud 3.0.5 raises on any top-level key besides `boxes`.
      const build = () => ({ boxes: hits.map((b) => boxSummaryJson(b, links)) });
      // Hits from the read caches are the same frozen boxes and versions until one changes: the page is serialized
      // once.
      const from = hits.flatMap((h) => [h.box, h.current ?? NO_VERSION]);
      if (from.length > 0) answers.send(ctx, [from[0], ...from.slice(1)], `${links.urls.base} ${links.api}`, build);
      else ctx.body = build();
    }),
  );

  r.post(
    BOX.boxes.path,
    validated({ body: CreateBoxBody }, async (ctx, { body }) => {
      // Packer and the gem accept 200; a 201 would gain nothing and Packer checks for exactly 200.
      ctx.body = box(ctx, await deps.registry.createBox(requirePublisher(ctx), body));
    }),
  );

  r.get(
    BOX.box.path,
    validated({ params: BoxParams }, async (ctx, { params }) => {
      const detail = await deps.registry.box(caller(ctx), { username: params.username, box: params.name });
      const links = linksFor(ctx, deps.config);
      // Who may manage the box sees its unreleased versions (another array of the read caches);
      // `shown` in the variant keeps their answer from anyone else all the same.
      answers.send(ctx, [detail.box, detail.versions], `${links.urls.base} ${links.api} ${detail.shown}`, () =>
        boxJson(detail, links),
      );
    }),
  );

  r.put(
    BOX.box.path,
    validated({ params: BoxParams, body: UpdateBoxBody }, async (ctx, { params, body }) => {
      ctx.body = box(
        ctx,
        await deps.registry.updateBox(requirePublisher(ctx), { username: params.username, box: params.name }, body),
      );
    }),
  );

  r.delete(
    BOX.box.path,
    validated({ params: BoxParams }, async (ctx, { params }) => {
      ctx.body = box(
        ctx,
        await deps.registry.deleteBox(requirePublisher(ctx), { username: params.username, box: params.name }),
      );
    }),
  );

  versionRoutes(r, deps);
  providerRoutes(r, deps);
  return r;
}
