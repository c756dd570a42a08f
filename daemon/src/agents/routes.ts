import Router from '@koa/router';
import { TFC } from '../http/route-table';
import { requireUser } from '../auth/middleware';
import { baseUrl } from '../http/base-url';
import { validated } from '../http/validate';
import { document, sendDocument, sendNoContent } from '../http/jsonapi/document';
import { listDocument } from '../http/jsonapi/list';
import { AnswerMemo } from '../http/answer-memo';
import { JSONAPI_TYPE } from '../contract/headers';
import { pageOf } from '../http/jsonapi/pagination';
import type { Config } from '../config';
import { IdParams } from '../http/params';
import type { AgentsService } from './service';
import { agentResource } from './resources';
import * as S from './schemas';

export interface AgentsRouteDeps {
  agents: AgentsService;
  config: Pick<Config, 'publicUrl'>;
}

/** A pool's agents. */
export function agentsRoutes(deps: AgentsRouteDeps): Router {
  const r = new Router();
  // A page the read cache kept (frozen rows) is serialized once, until an agent or the pool changes.
  const answers = new AnswerMemo();
  r.get(
    TFC.poolAgents.path,
    validated({ params: IdParams, query: S.AgentListQuery }, async (ctx, { params, query }) => {
      const page = pageOf(query);
      const { rows, total } = await deps.agents.list(
        requireUser(ctx),
        params.id,
        query['filter[last-ping-since]'],
        page,
      );
      const list = { base: baseUrl(ctx, deps.config.publicUrl), page, totalCount: total };
      answers.send(
        ctx,
        [rows],
        `${list.base} ${ctx.url} ${total}`,
        () => listDocument(ctx, rows.map(agentResource), list),
        JSONAPI_TYPE,
      );
    }),
  );
  r.get(
    TFC.agent.path,
    validated({ params: IdParams }, async (ctx, { params }) => {
      sendDocument(ctx, document(agentResource(await deps.agents.show(requireUser(ctx), params.id))));
    }),
  );
  r.delete(
    TFC.agent.path,
    validated({ params: IdParams }, async (ctx, { params }) => {
      await deps.agents.delete(requireUser(ctx), params.id);
      sendNoContent(ctx);
    }),
  );
  return r;
}
