import Router from '@koa/router';
import { requireUser } from '../http/auth';
import { baseUrl } from '../http/base-url';
import { validated } from '../http/validate';
import { document, sendDocument, sendNoContent } from '../http/jsonapi/document';
import { sendList } from '../http/jsonapi/list';
import { PageQuery, pageOf } from '../http/jsonapi/pagination';
import type { AgentsApiDeps } from './routes';
import { agentResource, agentTokenResource } from './resources';
import * as S from './schemas';

/** Agents and agent tokens of a pool. */
export function agentsRoutes(d: AgentsApiDeps): Router {
  const r = new Router();
  r.get('/agent-pools/:id/agents', validated({ params: S.IdParams, query: S.AgentListQuery }, async (ctx, { params, query }) => {
    const page = pageOf(query);
    const { rows, total } = await d.agents.list(requireUser(ctx), params.id, query['filter[last-ping-since]'], page);
    sendList(ctx, rows.map(agentResource), { base: baseUrl(ctx, d.config.publicUrl), page, totalCount: total });
  }));
  r.get('/agents/:id', validated({ params: S.IdParams }, async (ctx, { params }) => {
    sendDocument(ctx, document(agentResource(await d.agents.show(requireUser(ctx), params.id))));
  }));
  r.delete('/agents/:id', validated({ params: S.IdParams }, async (ctx, { params }) => {
    await d.agents.delete(requireUser(ctx), params.id);
    sendNoContent(ctx);
  }));

  r.get('/agent-pools/:id/authentication-tokens', validated({ params: S.IdParams, query: PageQuery }, async (ctx, { params, query }) => {
    const page = pageOf(query);
    const { rows, total } = await d.agentTokens.list(requireUser(ctx), params.id, page);
    sendList(ctx, rows.map((t) => agentTokenResource(t)), { base: baseUrl(ctx, d.config.publicUrl), page, totalCount: total });
  }));
  r.post('/agent-pools/:id/authentication-tokens', validated({ params: S.IdParams, body: S.AgentTokenCreateBody }, async (ctx, { params, body }) => {
    const { row, secret } = await d.agentTokens.create(requireUser(ctx), params.id, body.description);
    sendDocument(ctx, document(agentTokenResource(row, secret)), 201);
  }));
  r.get('/authentication-tokens/:id', validated({ params: S.IdParams }, async (ctx, { params }) => {
    sendDocument(ctx, document(agentTokenResource(await d.agentTokens.show(requireUser(ctx), params.id))));
  }));
  r.delete('/authentication-tokens/:id', validated({ params: S.IdParams }, async (ctx, { params }) => {
    await d.agentTokens.revoke(requireUser(ctx), params.id);
    sendNoContent(ctx);
  }));
  return r;
}
