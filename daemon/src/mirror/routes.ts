import Router from '@koa/router';
import { BOXYARD } from '../http/route-table';
import type { Context } from 'koa';
import { requireUser } from '../auth/middleware';
import { validated } from '../http/validate';
import type { OrgService } from '../orgs/service';
import type { JobRow, MirrorRow } from './repository';
import type { CacheRepository } from './cache/repository';
import type { MirrorService } from './mirrors-service';
import type { MirrorDryRun } from './plans/dry-run';
import type { MirrorRunner } from './jobs/runner';
import type { UpstreamService } from './upstreams/service';
import * as S from './schemas';
import { cachedBoxJson, jobJson, mirrorJson, upstreamJson } from './serialize';
import { mirrorActionRoutes, type MirrorActionDeps } from './actions/routes';

export interface MirrorRouteDeps extends MirrorActionDeps {
  upstreams: UpstreamService;
  mirrors: MirrorService;
  dryRun: MirrorDryRun;
  runner: MirrorRunner;
  cacheRepo: CacheRepository;
  orgs: OrgService;
}

/** Upstreams, mirrors, mirror jobs and the cache's boxes, under /api/boxyard (docs/mirroring.md). */
export function mirrorRoutes(deps: MirrorRouteDeps): Router {
  const r = new Router();
  const job = (j: JobRow) => jobJson(j, deps.runner.speed(j));
  const mirrors = async (list: MirrorRow[]) => {
    const last = new Map((await deps.mirrors.lastJobs(list)).map((j) => [j.mirror_id, j]));
    return Promise.all(
      list.map(async (m) => {
        const l = last.get(m.id);
        return mirrorJson(m, await deps.mirrors.upstreamOf(m), await deps.mirrors.runsAsName(m), l ? job(l) : null);
      }),
    );
  };
  const one = async (m: MirrorRow) => (await mirrors([m]))[0];

  r.get(BOXYARD.upstreams.path, async (ctx) => {
    ctx.body = { upstreams: (await deps.upstreams.list(requireUser(ctx))).map(upstreamJson) };
  });
  r.post(
    BOXYARD.upstreams.path,
    validated({ body: S.CreateUpstreamBody }, async (ctx, { body }) => {
      ctx.status = 201;
      ctx.body = { upstream: upstreamJson(await deps.upstreams.create(requireUser(ctx), body.upstream)) };
    }),
  );
  r.get(
    BOXYARD.upstream.path,
    validated({ params: S.IdParams }, async (ctx, { params }) => {
      ctx.body = { upstream: upstreamJson(await deps.upstreams.get(requireUser(ctx), params.id)) };
    }),
  );
  r.patch(
    BOXYARD.upstream.path,
    validated({ params: S.IdParams, body: S.UpdateUpstreamBody }, async (ctx, { params, body }) => {
      ctx.body = { upstream: upstreamJson(await deps.upstreams.update(requireUser(ctx), params.id, body.upstream)) };
    }),
  );
  r.delete(
    BOXYARD.upstream.path,
    validated({ params: S.IdParams }, async (ctx, { params }) => {
      await deps.mirrors.deleteUpstream(requireUser(ctx), params.id);
      ctx.status = 204;
    }),
  );

  r.get(BOXYARD.mirrors.path, async (ctx) => {
    ctx.body = { mirrors: await mirrors(await deps.mirrors.list(requireUser(ctx))) };
  });
  r.post(
    BOXYARD.mirrors.path,
    validated({ body: S.CreateMirrorBody }, async (ctx, { body }) => {
      const created = await deps.mirrors.create(requireUser(ctx), body.mirror);
      ctx.status = 201;
      ctx.body = { mirror: await one(created.mirror), job: created.job ? job(created.job) : null };
    }),
  );
  r.post(
    BOXYARD.mirrorPlans.path,
    validated({ body: S.CreateMirrorBody }, async (ctx, { body }) => {
      ctx.body = { plan: await deps.dryRun.plan(requireUser(ctx), body.mirror) };
    }),
  );
  r.get(
    BOXYARD.mirror.path,
    validated({ params: S.IdParams }, async (ctx, { params }) => {
      ctx.body = { mirror: await one(await deps.mirrors.get(requireUser(ctx), params.id)) };
    }),
  );
  r.patch(
    BOXYARD.mirror.path,
    validated({ params: S.IdParams, body: S.UpdateMirrorBody }, async (ctx, { params, body }) => {
      ctx.body = { mirror: await one(await deps.mirrors.update(requireUser(ctx), params.id, body.mirror)) };
    }),
  );
  r.delete(
    BOXYARD.mirror.path,
    validated({ params: S.IdParams }, async (ctx, { params }) => {
      await deps.mirrors.delete(requireUser(ctx), params.id);
      ctx.status = 204;
    }),
  );
  r.post(
    BOXYARD.mirrorRun.path,
    validated({ params: S.IdParams }, async (ctx, { params }) => {
      ctx.status = 201;
      ctx.body = { job: job(await deps.mirrors.run(requireUser(ctx), params.id)) };
    }),
  );
  r.post(
    BOXYARD.mirrorResume.path,
    validated({ params: S.IdParams, body: S.ResumeMirrorBody }, async (ctx, { params, body }) => {
      ctx.body = { mirror: await one(await deps.mirrors.resume(requireUser(ctx), params.id, body.mirror)) };
    }),
  );

  r.get(
    BOXYARD.mirrorJobs.path,
    validated({ query: S.JobsQuery }, async (ctx, { query }) => {
      ctx.body = { jobs: (await deps.mirrors.jobs(requireUser(ctx), query.mirror)).map(job) };
    }),
  );
  r.get(
    BOXYARD.mirrorJob.path,
    validated({ params: S.IdParams }, async (ctx, { params }) => {
      ctx.body = { job: job(await deps.mirrors.job(requireUser(ctx), params.id)) };
    }),
  );
  r.post(
    BOXYARD.mirrorJobCancel.path,
    validated({ params: S.IdParams }, async (ctx, { params }) => {
      ctx.body = { job: job(await deps.mirrors.cancel(requireUser(ctx), params.id)) };
    }),
  );

  r.get(BOXYARD.cache.path, async (ctx: Context) => {
    const p = requireUser(ctx);
    const rows = await deps.cacheRepo.cachedBoxes();
    const visible = [];
    for (const row of rows) {
      const ns = row.username ? await deps.orgs.namespace(row.username) : undefined;
      if (row.private === 0 || (ns && (await deps.orgs.isMember(p, ns)))) visible.push(cachedBoxJson(row));
    }
    ctx.body = { boxes: visible };
  });
  r.use(mirrorActionRoutes(deps, job).routes());
  return r;
}
