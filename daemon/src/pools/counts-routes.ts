import Router from '@koa/router';
import { z } from 'zod';
import { BOXYARD } from '../http/route-table';
import { requireUser } from '../auth/middleware';
import { validated } from '../http/validate';
import { NameParams, queryValue } from '../http/params';
import { MAX_COUNTED_POOLS, noAgents, type AgentStatusCountsAnswer } from '../contract/wire/agent-counts';
import type { PoolsService } from './service';

/** `?pools=apool-a,apool-b`: the pools of the page the UI shows; absent, every pool of the organization. */
const CountsQuery = z.object({
  pools: queryValue(
    z
      .string()
      .max(MAX_COUNTED_POOLS * 260)
      .transform((s) => s.split(',').filter(Boolean))
      .refine((ids) => ids.length <= MAX_COUNTED_POOLS, `at most ${MAX_COUNTED_POOLS} pool ids`)
      .optional(),
  ),
});

/**
 * Agents per status of an organization's pools (under /api/boxyard), for the web UI's pool list:
 * one request and one query for a whole page of pools, where the JSON:API's `agent-count` gives
 * only the live ones together.
 */
export function poolCountsRoutes(deps: { pools: PoolsService }): Router {
  const r = new Router();
  r.get(
    BOXYARD.agentStatusCounts.path,
    validated({ params: NameParams, query: CountsQuery }, async (ctx, { params, query }) => {
      const rows = await deps.pools.statusCounts(requireUser(ctx), params.name, query.pools);
      const counts: AgentStatusCountsAnswer['status_counts'] = {};
      for (const row of rows) {
        counts[row.pool_id] ??= noAgents();
        counts[row.pool_id][row.status] = Number(row.n);
      }
      ctx.body = { status_counts: counts } satisfies AgentStatusCountsAnswer;
    }),
  );
  return r;
}
