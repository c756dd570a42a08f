import Router from '@koa/router';
import { TFC } from '../http/route-table';
import { requireUser } from '../auth/middleware';
import { baseUrl } from '../http/base-url';
import { validated } from '../http/validate';
import { document, sendDocument, sendNoContent, type Resource } from '../http/jsonapi/document';
import { listDocument, sendList } from '../http/jsonapi/list';
import { AnswerMemo } from '../http/answer-memo';
import { JSONAPI_TYPE } from '../contract/headers';
import { PageQuery, pageOf } from '../http/jsonapi/pagination';
import { parseInclude, parseSort } from '../http/jsonapi/query';
import type { PoolView } from './repository';
import type { Config } from '../config';
import { IdParams, OrgParams } from '../http/params';
import type { WorkspacesRepository } from '../workspaces/repository';
import { workspaceResource } from '../workspaces/resources';
import { agentTokenResource, poolResource } from './resources';
import * as S from './schemas';
import type { PoolsService } from './service';
import type { AgentTokensService } from './tokens-service';

const SORTS = ['name', 'created-at'] as const;
const INCLUDES = ['workspaces'] as const;

export interface PoolsRouteDeps {
  pools: PoolsService;
  agentTokens: AgentTokensService;
  workspacesRepo: WorkspacesRepository;
  config: Pick<Config, 'publicUrl'>;
}

/** Agent pools and their agent tokens. */
export function poolsRoutes(deps: PoolsRouteDeps): Router {
  const r = new Router();
  const answers = new AnswerMemo();

  /**
   * `include=workspaces`: the workspaces assigned to this page's pools, each once, in one query
   * (the pools of a page share their organization).
   */
  const includedWorkspaces = async (views: PoolView[]): Promise<Resource[]> => {
    if (views.length === 0) return [];
    const rows = await deps.workspacesRepo.workspacesByIds(views[0].organization_id, [
      ...new Set(views.flatMap((v) => v.workspace_ids)),
    ]);
    const byId = new Map(rows.map((w) => [w.id, w]));
    return views.flatMap((v) =>
      v.workspace_ids.flatMap((id) => {
        const w = byId.get(id);
        return w ? [workspaceResource(w, v.organization_name)] : [];
      }),
    );
  };

  r.get(
    TFC.agentPools.path,
    validated({ params: OrgParams, query: S.PoolListQuery }, async (ctx, { params, query }) => {
      const include = parseInclude(query.include, INCLUDES);
      const sort = parseSort(query.sort, SORTS);
      const page = pageOf(query);
      const { views, total, matching } = await deps.pools.list(requireUser(ctx), params.org, {
        search: query.search,
        sort,
        workspaceName: query.workspaceName,
        projectName: query.projectName,
        page,
      });
      const base = baseUrl(ctx, deps.config.publicUrl);
      const list = { base, page, totalCount: matching, meta: { 'status-counts': { total, matching } } };
      if (include.has('workspaces')) {
        sendList(ctx, views.map(poolResource), { ...list, included: await includedWorkspaces(views) });
      } else if (views.length > 0 && ctx.query.access_token === undefined) {
        // Pools from the read caches come as the same frozen views until they change: their answer is
        // kept as bytes, keyed by the URL (not one that carries a token).
        answers.send(
          ctx,
          [views[0], ...views.slice(1)],
          `${base} ${ctx.url} ${total} ${matching}`,
          () => listDocument(ctx, views.map(poolResource), list),
          JSONAPI_TYPE,
        );
      } else {
        sendList(ctx, views.map(poolResource), list);
      }
    }),
  );
  r.post(
    TFC.agentPools.path,
    validated({ params: OrgParams, body: S.PoolCreateBody }, async (ctx, { params, body }) => {
      sendDocument(ctx, document(poolResource(await deps.pools.create(requireUser(ctx), params.org, body))), 201);
    }),
  );
  r.get(
    TFC.agentPool.path,
    validated({ params: IdParams, query: S.IncludeQuery }, async (ctx, { params, query }) => {
      const include = parseInclude(query.include, INCLUDES);
      const view = await deps.pools.show(requireUser(ctx), params.id);
      sendDocument(
        ctx,
        document(poolResource(view), {
          included: include.has('workspaces') ? await includedWorkspaces([view]) : undefined,
        }),
      );
    }),
  );
  r.patch(
    TFC.agentPool.path,
    validated({ params: IdParams, body: S.PoolUpdateBody }, async (ctx, { params, body }) => {
      sendDocument(ctx, document(poolResource(await deps.pools.update(requireUser(ctx), params.id, body))));
    }),
  );
  r.delete(
    TFC.agentPool.path,
    validated({ params: IdParams }, async (ctx, { params }) => {
      await deps.pools.delete(requireUser(ctx), params.id);
      sendNoContent(ctx);
    }),
  );

  r.get(
    TFC.agentTokens.path,
    validated({ params: IdParams, query: PageQuery }, async (ctx, { params, query }) => {
      const page = pageOf(query);
      const { rows, total } = await deps.agentTokens.list(requireUser(ctx), params.id, page);
      sendList(
        ctx,
        rows.map((t) => agentTokenResource(t)),
        { base: baseUrl(ctx, deps.config.publicUrl), page, totalCount: total },
      );
    }),
  );
  r.post(
    TFC.agentTokens.path,
    validated({ params: IdParams, body: S.AgentTokenCreateBody }, async (ctx, { params, body }) => {
      const { row, secret } = await deps.agentTokens.create(requireUser(ctx), params.id, body.description);
      sendDocument(ctx, document(agentTokenResource(row, secret)), 201);
    }),
  );
  r.get(
    TFC.agentToken.path,
    validated({ params: IdParams }, async (ctx, { params }) => {
      sendDocument(ctx, document(agentTokenResource(await deps.agentTokens.show(requireUser(ctx), params.id))));
    }),
  );
  r.delete(
    TFC.agentToken.path,
    validated({ params: IdParams }, async (ctx, { params }) => {
      await deps.agentTokens.revoke(requireUser(ctx), params.id);
      sendNoContent(ctx);
    }),
  );
  return r;
}
