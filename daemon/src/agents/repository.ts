import { inBatch, inTurn } from '../store/transaction';
import { ADVISORY_LOCKS } from '../store/advisory-locks';
import type { Kysely, Selectable, Insertable } from 'kysely';
import type { Database } from '../store/schema';
import { prepare } from '../store/cache/prepared';
import { cachedQuery, type ReadCache } from '../store/cache/read-cache';
import type { TableClock } from '../store/cache/table-clock';
import { FINAL_STATUSES, hotAgentQueries, writeKeptPings } from './queries';
import type { AgentStatus } from '../contract/wire/jsonapi';
import type { AgentsTable } from './tables';
import { PingBuffer, type Ping } from './pings';

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

  /** Reports that change only the ping, written a second later with the others (pings.ts). */
  private readonly pings: PingBuffer;

  /** `onPingError`: a batch of pings could not be written (logged by the daemon). */
  constructor(
    private readonly db: Kysely<Database>,
    versions: TableClock,
    onPingError: (err: unknown) => void,
  ) {
    this.hot = hotAgentQueries(db);
    this.pings = new PingBuffer((batch) => this.writePings(batch), onPingError);
    const page = prepare(db, (poolId: string, limit: number, offset: number) =>
      db
        .selectFrom('agents')
        .innerJoin('agent_pools', 'agent_pools.id', 'agents.pool_id')
        .select([
          'agents.id',
          'agents.pool_id',
          'agents.name',
          'agents.status',
          'agents.ip_address',
          'agents.last_ping_at',
          'agent_pools.agent_total as total',
        ])
        .where('agents.pool_id', '=', poolId)
        .orderBy('agents.seq')
        .limit(limit)
        .offset(offset),
    );
    this.pages = cachedQuery(
      versions,
      page,
      (rows) => ({
        rows: rows.map(({ total: _total, ...agent }) => agent),
        total: rows.length > 0 ? Number(rows[0].total) : null,
      }),
      100,
    );
    this.totals = cachedQuery(versions, this.hot.count, (rows) => Number(rows[0]?.n ?? 0), 1000);
  }

  async agentById(id: string) {
    await this.pings.flush();
    return this.hot.agentById.first(id);
  }
  /** A page of a pool's agents in registration order, and how many there are (pages in SQL). */
  async listAgents(
    poolId: string,
    opts: { since?: string; offset: number; limit: number },
  ): Promise<{ rows: readonly AgentView[]; total: number }> {
    const { since } = opts;
    await this.pings.flush();
    if (since === undefined) {
      const page = await this.pages.get(poolId, opts.limit, opts.offset);
      return { rows: page.rows, total: page.total ?? (await this.totals.get(poolId)) };
    }
    const rows = await this.hot.pageSince.all(poolId, since, opts.limit, opts.offset);
    const total = await this.hot.countSince.first(poolId, since);
    return { rows, total: Number(total?.n ?? 0) };
  }
  /** Numbered after the last agent registered, one registration at a time (several daemons too). */
  async insertAgent(row: Omit<Insertable<AgentsTable>, 'seq'>) {
    await inTurn(this.db, ADVISORY_LOCKS.agentNumbers, async (trx) => {
      const max = await trx
        .selectFrom('agents')
        .select((eb) => eb.fn.max('seq').as('m'))
        .executeTakeFirst();
      await trx
        .insertInto('agents')
        .values({ ...row, seq: Number(max?.m ?? 0) + 1 })
        .execute();
    });
    this.pings.resetTo(
      row.id,
      row.token_id && LIVE_STATUSES.includes(row.status) ? { tokenId: row.token_id, status: row.status } : null,
    );
  }
  /**
   * Records a report of the agent registered with `tokenId`, unless it reached a final status
   * meanwhile (the watchdog or a revoke may win the race): returns whether the report was taken.
   * A report that only pings an agent this daemon last wrote with that token and status is kept
   * in memory and written a second later with the others (pings.ts). Otherwise one statement when
   * the status stays, setting only the ping, so that nothing kept per pool changes; a second one
   * when it changes. Only a refused report needs a look at the agent, to say why.
   */
  async report(
    id: string,
    tokenId: string,
    patch: { status: AgentStatus; last_ping_at: string; ip_address: string },
  ): Promise<boolean> {
    const { status, last_ping_at: at, ip_address: ip } = patch;
    if (this.pings.take({ id, tokenId, status, at, ip })) return true;
    let taken = false;
    if (!FINAL_STATUSES.includes(status)) {
      const pinged = await this.hot.ping.execute(at, ip, id, tokenId, status);
      taken = Number(pinged.numAffectedRows ?? 0) > 0;
    }
    if (!taken) {
      const r = await this.hot.report.execute(status, at, ip, id, tokenId);
      taken = Number(r.numAffectedRows ?? 0) > 0;
    }
    this.pings.resetTo(id, taken && LIVE_STATUSES.includes(status) ? { tokenId, status } : null);
    return taken;
  }

  /**
   * Writes kept pings in one transaction (one commit a second instead of one per report), in
   * order of id; returns the agents it found no row for. A ping of an agent turned unknown
   * meanwhile makes it live again, as a report written at once would have.
   */
  private writePings(batch: readonly Ping[]): Promise<Set<string>> {
    const sorted = [...batch].sort((a, b) => (a.id < b.id ? -1 : 1));
    return inBatch(this.db, async (trx) => {
      const written = await writeKeptPings(trx, sorted);
      const missed = new Set<string>();
      for (const p of sorted) {
        if (written.has(p.id)) continue;
        const reported = await this.hot.keptReport.executeIn(trx, p.status, p.at, p.ip, p.id, p.tokenId);
        if (Number(reported.numAffectedRows ?? 0) === 0) missed.add(p.id);
      }
      return missed;
    });
  }

  /**
   * Takes every live agent as written with its token and status, as the database has them: after
   * a start, 10,000 agents' first reports were otherwise 10,000 writes in one ping interval, which
   * put the p99 of that interval's reports at a quarter of a second. A kept ping is written only
   * over that token and status (or as a report), so knowing an agent never writes a wrong one.
   */
  async knowLiveAgents(): Promise<void> {
    const live = await this.db
      .selectFrom('agents')
      .select(['id', 'token_id', 'status'])
      .where('status', 'in', LIVE_STATUSES)
      .where('token_id', 'is not', null)
      .$narrowType<{ token_id: string }>()
      .execute();
    for (const a of live) this.pings.resetTo(a.id, { tokenId: a.token_id, status: a.status });
  }

  /** Writes the pings kept in memory now (reads of agents do it themselves). */
  flushPings(): Promise<void> {
    return this.pings.flush();
  }

  /** Writes the pings kept in memory and keeps no more; the daemon calls it as it stops. */
  closePings(): Promise<void> {
    return this.pings.close();
  }

  async deleteAgent(id: string) {
    // Forgotten before and after: a report taken in between is written at once, and refused.
    this.pings.resetTo(id, null);
    await this.db.deleteFrom('agents').where('id', '=', id).execute();
    this.pings.resetTo(id, null);
  }

  /**
   * The watchdog's tick, one statement whatever the number of agents: live agents silent since
   * `unknownBefore` turn unknown, and unknown ones (or live ones) silent since `erroredBefore`
   * turn errored. Kept pings are written first, so that an agent that reported is not turned.
   */
  async markSilent(unknownBefore: string, erroredBefore: string): Promise<{ unknown: number; errored: number }> {
    await this.pings.flush();
    const turned = await this.db
      .updateTable('agents')
      .set((eb) => ({
        status: eb
          .case()
          .when(eb.or([eb('status', '=', 'unknown'), eb('last_ping_at', '<', erroredBefore)]))
          .then('errored')
          .else('unknown')
          .end()
          .$castTo<AgentStatus>(),
      }))
      .where((eb) =>
        eb.or([
          eb.and([eb('status', 'in', LIVE_STATUSES), eb('last_ping_at', '<', unknownBefore)]),
          eb.and([eb('status', '=', 'unknown'), eb('last_ping_at', '<', erroredBefore)]),
        ]),
      )
      .returning(['id', 'status'])
      .execute();
    // Their next reports are written at once; a ping kept meanwhile makes its agent live again (writePings).
    for (const { id } of turned) this.pings.forget(id);
    const unknown = turned.filter((t) => t.status === 'unknown').length;
    return { unknown, errored: turned.length - unknown };
  }
}
