import type { Kysely, Selectable, Insertable } from 'kysely';
import type { Database } from '../store/schema';
import type { AgentsTable, AgentStatus, AgentTokensTable } from './tables';

export type AgentRow = Selectable<AgentsTable>;
export type AgentTokenRow = Selectable<AgentTokensTable>;

/** Statuses an agent never leaves: a late report is answered "stop". */
export const FINAL_STATUSES: readonly AgentStatus[] = ['errored', 'exited'];
/** Statuses of an agent that reports. */
export const LIVE_STATUSES: readonly AgentStatus[] = ['idle', 'busy'];

/** The only SQL for agents and agent tokens. */
export class AgentsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  tokenById(id: string) {
    return this.db.selectFrom('agent_tokens').selectAll().where('id', '=', id).executeTakeFirst();
  }
  tokenByHash(hash: string) {
    return this.db.selectFrom('agent_tokens').selectAll().where('token_hash', '=', hash).executeTakeFirst();
  }
  async listTokens(poolId: string, offset: number, limit: number) {
    const base = this.db.selectFrom('agent_tokens').where('pool_id', '=', poolId);
    const rows = await base.selectAll().orderBy('created_at').orderBy('id').offset(offset).limit(limit).execute();
    const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return { rows, total: Number(total.n) };
  }
  async insertToken(row: Insertable<AgentTokensTable>) {
    await this.db.insertInto('agent_tokens').values(row).execute();
  }
  async touchToken(id: string, at: string) {
    await this.db.updateTable('agent_tokens').set({ last_used_at: at }).where('id', '=', id).execute();
  }
  /** Deletes the token and marks the agents that used it exited, in one transaction. */
  async revokeToken(id: string) {
    await this.db.transaction().execute(async (trx) => {
      await trx.updateTable('agents').set({ status: 'exited' })
        .where('token_id', '=', id).where('status', 'not in', FINAL_STATUSES).execute();
      await trx.deleteFrom('agent_tokens').where('id', '=', id).execute();
    });
  }

  agentById(id: string) {
    return this.db.selectFrom('agents').selectAll().where('id', '=', id).executeTakeFirst();
  }
  async listAgents(poolId: string, opts: { since?: string; offset: number; limit: number }) {
    let base = this.db.selectFrom('agents').where('pool_id', '=', poolId);
    if (opts.since) base = base.where('last_ping_at', '>=', opts.since);
    const rows = await base.selectAll().orderBy('seq').offset(opts.offset).limit(opts.limit).execute();
    const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return { rows, total: Number(total.n) };
  }
  async insertAgent(row: Omit<Insertable<AgentsTable>, 'seq'>) {
    await this.db.transaction().execute(async (trx) => {
      const max = await trx.selectFrom('agents').select((eb) => eb.fn.max('seq').as('m')).executeTakeFirst();
      await trx.insertInto('agents').values({ ...row, seq: Number(max?.m ?? 0) + 1 }).execute();
    });
  }
  /**
   * Records a report unless the agent reached a final status meanwhile (the watchdog or a revoke
   * may win the race): returns whether the report was taken.
   */
  async report(id: string, patch: { status: AgentStatus; last_ping_at: string; ip_address: string }): Promise<boolean> {
    const r = await this.db.updateTable('agents').set(patch)
      .where('id', '=', id).where('status', 'not in', FINAL_STATUSES).executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
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
