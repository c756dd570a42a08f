import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database } from '../store/schema';
import { prepare } from '../store/cache/prepared';
import { cachedQuery, type ReadCache } from '../store/cache/read-cache';
import type { TableClock } from '../store/cache/table-clock';
import type { AgentTokensTable } from './tables';
import { countRows } from '../store/count';

export type AgentTokenRow = Selectable<AgentTokensTable>;

/** The only SQL for agent tokens. */
export class AgentTokensRepository {
  private readonly hot;
  /** Every agent report presents its token: kept in memory until agent_tokens changes. */
  private readonly byHash: ReadCache<[string], AgentTokenRow | undefined>;

  constructor(
    private readonly db: Kysely<Database>,
    versions: TableClock,
  ) {
    // Built once (store/cache/prepared.ts): the agent protocol's busiest statements.
    this.hot = {
      byHash: prepare(db, (hash: string) => db.selectFrom('agent_tokens').selectAll().where('token_hash', '=', hash)),
      touch: prepare(db, (at: string, id: string) =>
        db.updateTable('agent_tokens').set({ last_used_at: at }).where('id', '=', id),
      ),
    };
    this.byHash = cachedQuery(versions, this.hot.byHash, (rows) => rows[0], 5000);
  }

  tokenById(id: string) {
    return this.db.selectFrom('agent_tokens').selectAll().where('id', '=', id).executeTakeFirst();
  }
  tokenByHash(hash: string) {
    return this.byHash.get(hash);
  }
  async listTokens(poolId: string, offset: number, limit: number) {
    const base = this.db.selectFrom('agent_tokens').where('pool_id', '=', poolId);
    const rows = await base.selectAll().orderBy('created_at').orderBy('id').offset(offset).limit(limit).execute();
    return { rows, total: await countRows(base) };
  }
  async insertToken(row: Insertable<AgentTokensTable>) {
    await this.db.insertInto('agent_tokens').values(row).execute();
  }
  async touchToken(id: string, at: string) {
    await this.hot.touch.execute(at, id);
  }
  /** Deletes the token; its agents exit with it (a trigger, migration 011). */
  async revokeToken(id: string) {
    await this.db.deleteFrom('agent_tokens').where('id', '=', id).execute();
  }
}
