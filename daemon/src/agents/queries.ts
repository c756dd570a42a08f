import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../store/schema';
import { prepare } from '../store/cache/prepared';
import type { AgentStatus } from '../contract/wire/jsonapi';
import type { Ping } from './pings';

/** A kept ping as the statement's `values` list holds it. */
interface PingRow {
  id: string;
  token_id: string;
  status: AgentStatus;
  at: string;
  ip: string;
}

/** The sizes batches of kept pings are written in: a few statement texts, each prepared once. */
const PING_CHUNKS = [128, 32, 8, 1];

/**
 * Writes kept pings (pings.ts) a chunk to a statement, each only over its agent with the same token
 * and status and an older ping; returns the ids written. One statement
 * per ping made 1,000 round trips a second on PostgreSQL with 10,000 agents.
 */
export async function writeKeptPings(
  db: Kysely<Database> | Transaction<Database>,
  pings: readonly Ping[],
): Promise<Set<string>> {
  const written = new Set<string>();
  let i = 0;
  for (const size of PING_CHUNKS) {
    for (; pings.length - i >= size; i += size) {
      const rows = sql.join(
        pings.slice(i, i + size).map((p) => sql`(${p.id}, ${p.tokenId}, ${p.status}, ${p.at}, ${p.ip})`),
      );
      // Built, not raw: the read caches learn from the tree that only these two columns change.
      const r = await db
        .with('v(id, token_id, status, at, ip)', () => sql<PingRow>`(values ${rows})`)
        .updateTable('agents')
        .from('v')
        .set((eb) => ({ last_ping_at: eb.ref('v.at'), ip_address: eb.ref('v.ip') }))
        .whereRef('agents.id', '=', 'v.id')
        .whereRef('agents.token_id', '=', 'v.token_id')
        .whereRef('agents.status', '=', 'v.status')
        .whereRef('agents.last_ping_at', '<=', 'v.at')
        .returning('agents.id')
        .execute();
      for (const row of r) written.add(row.id);
    }
  }
  return written;
}

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
  const pinging = (at: string, ip: string, id: string, tokenId: string, status: AgentStatus) =>
    db
      .updateTable('agents')
      .set({ last_ping_at: at, ip_address: ip })
      .where('id', '=', id)
      .where('token_id', '=', tokenId)
      .where('status', '=', status);
  const reporting = (status: AgentStatus, at: string, ip: string, id: string, tokenId: string) =>
    db
      .updateTable('agents')
      .set({ status, last_ping_at: at, ip_address: ip })
      .where('id', '=', id)
      .where('token_id', '=', tokenId)
      .where('status', 'not in', FINAL_STATUSES);
  return {
    agentById: prepare(db, (id: string) => db.selectFrom('agents').selectAll().where('id', '=', id)),
    // The common report: the status is what it was, so only the ping changes (no pool count moves).
    ping: prepare(db, pinging),
    report: prepare(db, reporting),
    // A ping kept in memory (pings.ts) whose agent's status changed meanwhile (the watchdog turned
    // it unknown), written a second later as report does (writeKeptPings writes the others).
    keptReport: prepare(db, (status: AgentStatus, at: string, ip: string, id: string, tokenId: string) =>
      reporting(status, at, ip, id, tokenId).where('last_ping_at', '<=', at),
    ),
    // Kept by triggers (migration 008): counting a thousand agents per page cost more than the page.
    count: prepare(db, (poolId: string) =>
      db.selectFrom('agent_pools').select('agent_total as n').where('id', '=', poolId),
    ),
    pageSince: prepare(db, (poolId: string, since: string, limit: number, offset: number) =>
      pingedSince(poolId, since).select(shown).orderBy('seq').limit(limit).offset(offset),
    ),
    countSince: prepare(db, (poolId: string, since: string) =>
      pingedSince(poolId, since).select((eb) => eb.fn.countAll<number>().as('n')),
    ),
  };
}
