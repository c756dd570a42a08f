import Router from '@koa/router';
import { AGENT } from '../http/route-table';
import { presentedToken } from '../auth/middleware';
import { validated } from '../http/validate';
import type { AgentProtocolService } from './protocol-service';
import * as S from './schemas';
import { IdParams } from '../http/params';

/**
 * Boxyard's agent protocol under /api/agent (documented in docs/agent-pools.md). Authenticated by an
 * agent token, not a user token. Plain JSON; errors in the agent dialect (http/errors/dialects.ts):
 * the box API's body with its code, and `"action":"stop"` when the agent must not retry.
 */
export function protocolRoutes(deps: { protocol: AgentProtocolService }): Router {
  const r = new Router();
  r.post(
    AGENT.register.path,
    validated({ body: S.RegisterBody }, async (ctx, { body }) => {
      const token = await deps.protocol.authenticate(presentedToken(ctx));
      const { agent, ping_interval_seconds } = await deps.protocol.register(token, {
        name: body.name ?? null,
        ip: ctx.ip,
      });
      ctx.status = 201;
      ctx.body = {
        agent: { id: agent.id, name: agent.name, status: agent.status, pool_id: agent.pool_id },
        action: 'continue',
        ping_interval_seconds,
      };
    }),
  );
  r.post(
    AGENT.status.path,
    validated({ params: IdParams, body: S.ReportBody }, async (ctx, { params, body }) => {
      const token = await deps.protocol.authenticate(presentedToken(ctx));
      ctx.body = await deps.protocol.report(token, params.id, body.status, ctx.ip);
    }),
  );
  return r;
}
