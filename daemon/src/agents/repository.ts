import { inTransaction } from '../store/transaction';
import type { Kysely, Selectable, Insertable } from 'kysely';
import type { Database } from '../store/schema';
import { prepare } from '../store/cache/prepared';
import { cachedQuery, type ReadCache } from '../store/cache/read-cache';
import type { TableClock } from '../store/cache/table-clock';
import { FINAL_STATUSES, hotAgentQueries } from './queries';
import type { AgentStatus } from '../contract/wire-jsonapi';
import type { AgentsTable } from './tables';

export type AgentRow = Selectable<AgentsTable>;
/** What an agent's resource shows. */
export type AgentView = Pick<AgentRow, 'id' | 'pool_id' | 'name' | 'status' | 'ip_address' | 'last_ping_at'>;

export { FINAL_STATUSES };
/** Statuses of an agent that reports. */
export const LIVE_STATUSES: readonly AgentStatus[] = ['idle', 'busy'];

/** The only SQL for agents (their tokens: pools/tokens-repository.ts). */
export class AgentsRepository {
  /** What each agent report and each agents page runs, built once (store/cache/prepared.ts). */
  private readonly hot;

  /**
   * Pages of agents with their pool's total, kept until an agent or pool changes: a report moves
   * its agent's ping, so while agents report a page lives at most one report; between reports (or
   * with none, as in a lab at night) every reader of a page shares one read. Turning 100 rows into
   * JavaScript values cost more than the rest of the request. The total (kept by triggers:
   * migration 008) comes on each row of the page, so a page is one statement; only an empty page
   * asks for the total alone. Each statement costs a round trip on PostgreSQL.
   */
  private readonly pages: ReadCache<[string, number, number], { rows: readonly AgentView[]; total: number | null }>;
  private readonly totals: ReadCache<[string], number>;

  constructor(private readonly db: Kysely<Database>, versions: TableClock) {
    this.hot = hotAgentQueries(db);
    const page = prepare(db, (poolId: string, limit: number, offset: number) => db.selectFrom('agents')
      .innerJoin('agent_pools', 'agent_pools.id', 'agents.pool_id')
      .select(['agents.id', 'agents.pool_id', 'agents.name', 'agents.status', 'agents.ip_address', 'agents.last_ping_at', 'agent_pools.agent_total as total'])
      .where('agents.pool_id', '=', poolId).orderBy('agents.seq').limit(limit).offset(offset));
    this.pages = cachedQuery(versions, page, (rows) => ({
      rows: rows.map(({ total: _total, ...agent }) => agent),
      total: rows.length > 0 ? Number(rows[0].total) : null,
    }), 100);
    this.totals = cachedQuery(versions, this.hot.count, (rows) => Number(rows[0]?.n ?? 0), 1000);
  }

  agentById(id: string) {
    return this.hot.agentById.first(id);
  }
  /** A page of a pool's agents in registration order, and how many there are (pages in SQL). */
  async listAgents(poolId: string, opts: { since?: string; offset: number; limit: number }): Promise<{ rows: readonly AgentView[]; total: number }> {
    const { since } = opts;
    if (since === undefined) {
      const page = await this.pages.get(poolId, opts.limit, opts.offset);
      return { rows: page.rows, total: page.total ?? (await this.totals.get(poolId)) };
    }
    const rows = await this.hot.pageSince.all(poolId, since, opts.limit, opts.offset);
    const total = await this.hot.countSince.first(poolId, since);
    return { rows, total: Number(total?.n ?? 0) };
  }
  async insertAgent(row: Omit<Insertable<AgentsTable>, 'seq'>) {
    await inTransaction(this.db, async (trx) => {
      const max = await trx.selectFrom('agents').select((eb) => eb.fn.max('seq').as('m')).executeTakeFirst();
      await trx.insertInto('agents').values({ ...row, seq: Number(max?.m ?? 0) + 1 }).execute();
    });
  }
  /**
   * Records a report of the agent registered with `tokenId`, unless it reached a final status
   * meanwhile (the watchdog or a revoke may win the race): returns whether the report was taken.
   * One statement when the status stays (most reports), setting only the ping, so that nothing
   * kept per pool changes; a second one when it changes. Only a refused report needs a look at
   * the agent, to say why.
   */
  async report(id: string, tokenId: string, patch: { status: AgentStatus; last_ping_at: string; ip_address: string }): Promise<boolean> {
    if (!FINAL_STATUSES.includes(patch.status)) {
      const pinged = await this.hot.ping.execute(patch.last_ping_at, patch.ip_address, id, tokenId, patch.status);
      if (Number(pinged.numAffectedRows ?? 0) > 0) return true;
    }
    const r = await this.hot.report.execute(patch.status, patch.last_ping_at, patch.ip_address, id, tokenId);
    return Number(r.numAffectedRows ?? 0) > 0;
  }
  async deleteAgent(id: string) {
    await this.db.deleteFrom('agents').where('id', '=', id).execute();
  }

  /** Live agents silent since `before` turn unknown. */
  async markUnknown(before: string): Promise<number> {
    const r = await this.db.updateTable('agents').set({ status: 'unknown' })
      .where('status', 'in', LIVE_STATUSES).where('last_ping_at', '<', before).executeTakeFirst();
    return Number(r.numUpdatedRows);
  }
  /** Unknown agents silent since `before` turn errored. */
  async markErrored(before: string): Promise<number> {
    const r = await this.db.updateTable('agents').set({ status: 'errored' })
      .where('status', '=', 'unknown').where('last_ping_at', '<', before).executeTakeFirst();
    return Number(r.numUpdatedRows);
  }
}
