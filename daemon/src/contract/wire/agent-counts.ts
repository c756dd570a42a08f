import { z } from 'zod';
import { AGENT_STATUSES, type AgentStatus } from './jsonapi';

/**
 * `GET /api/boxyard/organizations/:name/agent-status-counts`: how many agents of each status each
 * pool has, for a whole list of pools in one request. HCP Terraform's pool resource carries only
 * `agent-count` (idle, busy and unknown together), so the per-status counts the web UI's pool list
 * shows are Boxyard's own. Pure (zod only): the renderer bundles it.
 */
export const AgentStatusCounts = z.object(
  Object.fromEntries(AGENT_STATUSES.map((s) => [s, z.number().int().min(0)])) as Record<AgentStatus, z.ZodNumber>,
);
export type AgentStatusCounts = z.infer<typeof AgentStatusCounts>;

/** Keyed by pool id; a pool without agents is absent (every count zero). */
export const AgentStatusCountsAnswer = z.object({ status_counts: z.record(z.string(), AgentStatusCounts) });
export type AgentStatusCountsAnswer = z.infer<typeof AgentStatusCountsAnswer>;

/** How many pools one request may name (`?pools=a,b,…`): a page of the pool list. */
export const MAX_COUNTED_POOLS = 100;

export const noAgents = (): AgentStatusCounts =>
  Object.fromEntries(AGENT_STATUSES.map((s) => [s, 0])) as AgentStatusCounts;
