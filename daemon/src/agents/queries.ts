import type { Kysely } from 'kysely';
import type { Database } from '../store/schema';
import { prepare } from '../store/cache/prepared';
import type { AgentStatus } from '../contract/wire/jsonapi';

/** Statuses an agent never leaves: a late report is answered "stop". */
export const FINAL_STATUSES: readonly AgentStatus[] = ['errored', 'exited'];

/**
 * The agent protocol's statements and the agents page, built once: 1,000 agents reporting every
 * 10 s make the report path the daemon's busiest.
 */
export function hotAgentQueries(db: Kysely<Database>) {
  const ofPool = (poolId: string) => db.selectFrom('agents').where('pool_id', '=', poolId);
  const pingedSince = (poolId: string, since: string) => ofPool(poolId).where('last_ping_at', '>=', since);
  // What an agent resource shows (resources.ts): a page of 100 reads fewer values.
  const shown = ['id', 'pool_id', 'name', 'status', 'ip_address', 'last_ping_at'] as const;
  // A report of the agent registered with the token: its ping while the status stays, or a new live status.
  const pinging = (at: string, ip: string, id: string, tokenId: string, status: AgentStatus) => db.updateTable('agents')
    .set({ last_ping_at: at, ip_address: ip }).where('id', '=', id).where('token_id', '=', tokenId).where('status', '=', status);
  const reporting = (status: AgentStatus, at: string, ip: string, id: string, tokenId: string) => db.updateTable('agents')
    .set({ status, last_ping_at: at, ip_address: ip })
    .where('id', '=', id).where('token_id', '=', tokenId).where('status', 'not in', FINAL_STATUSES);
  return {
    agentById: prepare(db, (id: string) => db.selectFrom('agents').selectAll().where('id', '=', id)),
    // The common report: the status is what it was, so only the ping changes (no pool count moves).
    ping: prepare(db, pinging),
    report: prepare(db, reporting),
    // A ping kept in memory (pings.ts), written a second later: never over a newer one…
    keptPing: prepare(db, (at: string, ip: string, id: string, tokenId: string, status: AgentStatus) => pinging(at, ip, id, tokenId, status)
      .where('last_ping_at', '<=', at)),
    // …or of an agent whose status changed meanwhile (the watchdog turned it unknown): as report does.
    keptReport: prepare(db, (status: AgentStatus, at: string, ip: string, id: string, tokenId: string) => reporting(status, at, ip, id, tokenId)
      .where('last_ping_at', '<=', at)),
    // Kept by triggers (migration 008): counting a thousand agents per page cost more than the page.
    count: prepare(db, (poolId: string) => db.selectFrom('agent_pools').select('agent_total as n').where('id', '=', poolId)),
    pageSince: prepare(db, (poolId: string, since: string, limit: number, offset: number) => pingedSince(poolId, since)
      .select(shown).orderBy('seq').limit(limit).offset(offset)),
    countSince: prepare(db, (poolId: string, since: string) => pingedSince(poolId, since).select((eb) => eb.fn.countAll<number>().as('n'))),
  };
}
