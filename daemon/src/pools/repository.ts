import { inTransaction } from '../store/transaction';
import type { ExpressionBuilder, Kysely, Selectable, Transaction } from 'kysely';
import type { Database } from '../store/schema';
import type { AgentPoolsTable } from './tables';
import { nameKey } from '../contract/names';
import { contains } from '../store/like';
import { prepare } from '../store/cache/prepared';
import { cachedQuery } from '../store/cache/read-cache';
import type { TableClock } from '../store/cache/table-clock';
import { PoolViews } from './views';
import type { PoolRow, PoolView } from './tables';
import { present } from '../lib/invariant';

export type { PoolRow, PoolView };

export interface PoolLists {
  allowedWorkspaceIds?: string[];
  allowedProjectIds?: string[];
  excludedWorkspaceIds?: string[];
}

export interface PoolQuery {
  search?: string;
  sort?: { field: 'name' | 'created-at'; descending: boolean };
  /** Only pools this workspace may use (null: the named workspace does not exist: nothing matches). */
  usableBy?: { id: string; project_id: string } | null;
  /** Only pools this project may use. */
  usableByProject?: string | null;
  offset: number;
  limit: number;
}

type PoolsEb = ExpressionBuilder<Database, 'agent_pools'>;

const allowsProject = (eb: PoolsEb, projectId: string) =>
  eb.exists(
    eb
      .selectFrom('agent_pool_allowed_projects as p')
      .select('p.pool_id')
      .whereRef('p.pool_id', '=', 'agent_pools.id')
      .where('p.project_id', '=', projectId),
  );

/** HCP Terraform's rule in SQL (rules.ts's mayUse): not excluded, and scoped to the organization or allowing it. */
function usableByWorkspace(eb: PoolsEb, ws: { id: string; project_id: string }) {
  return eb.and([
    eb.not(
      eb.exists(
        eb
          .selectFrom('agent_pool_excluded_workspaces as x')
          .select('x.pool_id')
          .whereRef('x.pool_id', '=', 'agent_pools.id')
          .where('x.workspace_id', '=', ws.id),
      ),
    ),
    eb.or([
      eb('agent_pools.organization_scoped', '=', 1),
      eb.exists(
        eb
          .selectFrom('agent_pool_allowed_workspaces as w')
          .select('w.pool_id')
          .whereRef('w.pool_id', '=', 'agent_pools.id')
          .where('w.workspace_id', '=', ws.id),
      ),
      allowsProject(eb, ws.project_id),
    ]),
  ]);
}

const usableByProject = (eb: PoolsEb, projectId: string) =>
  eb.or([eb('agent_pools.organization_scoped', '=', 1), allowsProject(eb, projectId)]);

type PoolSort = NonNullable<PoolQuery['sort']>;
const SORTS: PoolSort[] = [false, true].flatMap((descending) =>
  (['created-at', 'name'] as const).map((field) => ({ field, descending })),
);
const sortKey = (s: PoolSort | undefined) => `${s?.field ?? 'created-at'} ${s?.descending ? 'desc' : 'asc'}`;

/** The only SQL for agent pools and their allow and exclude lists. */
export class PoolsRepository {
  private readonly byId;
  private readonly countOf;
  /** An unfiltered page per sort: what go-tfe and the UI ask for. */
  private readonly pages;
  private readonly relations: PoolViews;

  constructor(
    private readonly db: Kysely<Database>,
    versions: TableClock,
  ) {
    // Every agents, tokens and pool page starts with the pool's lookup: all built once, and kept
    // in memory until their tables change (agent reports change no pool: migration 008).
    this.relations = new PoolViews(db, versions);
    this.byId = cachedQuery(
      versions,
      prepare(db, (id: string) => this.pools().where('agent_pools.id', '=', id)),
      (rows) => rows[0],
    );
    this.countOf = cachedQuery(
      versions,
      prepare(db, (orgId: string) =>
        db
          .selectFrom('agent_pools')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('organization_id', '=', orgId),
      ),
      (rows) => Number(rows[0]?.n ?? 0),
    );
    // The organization's count comes on each row of the page (a window), so a page is one statement
    // (a round trip on PostgreSQL); only an empty page asks for the count alone.
    this.pages = new Map(
      SORTS.map((sort) => [
        sortKey(sort),
        cachedQuery(
          versions,
          prepare(db, (orgId: string, limit: number, offset: number) =>
            this.ordered(this.pools().where('agent_pools.organization_id', '=', orgId), sort)
              .select((eb) => eb.fn.countAll<number>().over().as('pools_in_organization'))
              .limit(limit)
              .offset(offset),
          ),
          (rows) => ({
            rows: rows.map(({ pools_in_organization: _n, ...pool }) => pool),
            total: rows.length > 0 ? Number(rows[0].pools_in_organization) : null,
          }),
        ),
      ]),
    );
  }

  /** Pools with their organization's name (`agent_count` is a column kept by triggers: migration 008). */
  private pools(db: Kysely<Database> = this.db) {
    return db
      .selectFrom('agent_pools')
      .innerJoin('organizations', 'organizations.id', 'agent_pools.organization_id')
      .selectAll('agent_pools')
      .select('organizations.name as organization_name');
  }

  /** Ties in creation order (`seq`), either way. */
  private ordered<Q extends ReturnType<PoolsRepository['pools']>>(q: Q, sort: PoolSort | undefined) {
    const dir = sort?.descending ? 'desc' : 'asc';
    return (
      sort?.field === 'name' ? q.orderBy('agent_pools.name_key', dir) : q.orderBy('agent_pools.created_at', dir)
    ).orderBy('agent_pools.seq', dir);
  }

  poolById(id: string): Promise<PoolRow | undefined> {
    return this.byId.get(id);
  }

  /** A page of an organization's pools, filtered and sorted in SQL. */
  async list(orgId: string, q: PoolQuery): Promise<{ rows: PoolRow[]; total: number; matching: number }> {
    if (q.search || q.usableBy !== undefined || q.usableByProject !== undefined) return this.filtered(orgId, q);
    const key = sortKey(q.sort);
    const pages = present(this.pages.get(key), `the constructor prepares the page query of every sort, ${key} too`);
    const page = await pages.get(orgId, q.limit, q.offset);
    const total = page.total ?? (await this.countInOrganization(orgId));
    return { rows: page.rows, total, matching: total };
  }

  /** Both counts in one query, then the page of matching pools. */
  private async filtered(orgId: string, q: PoolQuery): Promise<{ rows: PoolRow[]; total: number; matching: number }> {
    const nothing = q.usableBy === null || q.usableByProject === null;
    const matches = (eb: PoolsEb) =>
      eb.and([
        ...(nothing ? [eb.lit(false)] : []),
        ...(q.search ? [contains('agent_pools.name_key', nameKey(q.search))] : []),
        ...(q.usableBy ? [usableByWorkspace(eb, q.usableBy)] : []),
        ...(q.usableByProject ? [usableByProject(eb, q.usableByProject)] : []),
      ]);
    const counts = await this.db
      .selectFrom('agent_pools')
      .where('organization_id', '=', orgId)
      .select((eb) => [
        eb.fn.countAll<number>().as('total'),
        eb.fn.sum<number>(eb.case().when(matches(eb)).then(1).else(0).end()).as('matching'),
      ])
      .executeTakeFirstOrThrow();
    const [total, matching] = [Number(counts.total), Number(counts.matching ?? 0)];
    if (nothing || matching <= q.offset) return { rows: [], total, matching };
    const rows = await this.ordered(
      this.pools().where('agent_pools.organization_id', '=', orgId).where(matches),
      q.sort,
    )
      .offset(q.offset)
      .limit(q.limit)
      .execute();
    return { rows, total, matching };
  }

  /** In `db`, a transaction when a create checks the limit. */
  async countInOrganization(orgId: string, db: Kysely<Database> = this.db) {
    if (db !== this.db) {
      const r = await db
        .selectFrom('agent_pools')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('organization_id', '=', orgId)
        .executeTakeFirstOrThrow();
      return Number(r.n);
    }
    return this.countOf.get(orgId);
  }

  nameTaken(orgId: string, name: string, exceptId: string | null, db: Kysely<Database> = this.db) {
    let q = db
      .selectFrom('agent_pools')
      .select('id')
      .where('organization_id', '=', orgId)
      .where('name_key', '=', nameKey(name));
    if (exceptId) q = q.where('id', '!=', exceptId);
    return q.executeTakeFirst().then((r) => r !== undefined);
  }

  /** Runs `fn` in one transaction (create and update check limits and names inside it). */
  transaction<T>(fn: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
    return inTransaction(this.db, fn);
  }

  async insert(
    trx: Transaction<Database>,
    row: Omit<Selectable<AgentPoolsTable>, 'seq' | 'name_key' | 'agent_count' | 'agent_total'>,
    lists: PoolLists,
  ) {
    const max = await trx
      .selectFrom('agent_pools')
      .select((eb) => eb.fn.max('seq').as('m'))
      .executeTakeFirst();
    await trx
      .insertInto('agent_pools')
      .values({ ...row, name_key: nameKey(row.name), seq: Number(max?.m ?? 0) + 1 })
      .execute();
    await this.replaceLists(trx, row.id, lists);
  }

  async update(
    trx: Transaction<Database>,
    id: string,
    patch: { name?: string; organization_scoped?: number },
    lists: PoolLists,
  ) {
    const set = { ...patch, ...(patch.name !== undefined ? { name_key: nameKey(patch.name) } : {}) };
    if (Object.keys(set).length) await trx.updateTable('agent_pools').set(set).where('id', '=', id).execute();
    await this.replaceLists(trx, id, lists);
  }

  /** A list given (even `[]`) replaces the stored one; an absent list stays. */
  private async replaceLists(trx: Transaction<Database>, poolId: string, lists: PoolLists) {
    const ws = [
      ['agent_pool_allowed_workspaces', lists.allowedWorkspaceIds],
      ['agent_pool_excluded_workspaces', lists.excludedWorkspaceIds],
    ] as const;
    for (const [table, ids] of ws) {
      if (!ids) continue;
      await trx.deleteFrom(table).where('pool_id', '=', poolId).execute();
      if (ids.length)
        await trx
          .insertInto(table)
          .values([...new Set(ids)].map((workspace_id) => ({ pool_id: poolId, workspace_id })))
          .execute();
    }
    if (lists.allowedProjectIds) {
      await trx.deleteFrom('agent_pool_allowed_projects').where('pool_id', '=', poolId).execute();
      const ids = [...new Set(lists.allowedProjectIds)];
      if (ids.length)
        await trx
          .insertInto('agent_pool_allowed_projects')
          .values(ids.map((project_id) => ({ pool_id: poolId, project_id })))
          .execute();
    }
  }

  async delete(id: string) {
    await this.db.deleteFrom('agent_pools').where('id', '=', id).execute();
  }

  /**
   * Agents per pool and status in one GROUP BY (read from the index on pool and status), for the
   * organization's pools, or only those of `poolIds`.
   */
  statusCounts(orgId: string, poolIds?: readonly string[]) {
    let q = this.db
      .selectFrom('agents')
      .innerJoin('agent_pools', 'agent_pools.id', 'agents.pool_id')
      .select((eb) => ['agents.pool_id as pool_id', 'agents.status as status', eb.fn.countAll<number>().as('n')])
      .where('agent_pools.organization_id', '=', orgId);
    if (poolIds) q = q.where('agents.pool_id', 'in', poolIds.length ? [...poolIds] : ['']);
    return q.groupBy(['agents.pool_id', 'agents.status']).execute();
  }

  /** Adds the relationship ids to a page of pools, in one query (views.ts). */
  views(rows: PoolRow[]): Promise<PoolView[]> {
    return this.relations.of(rows);
  }
}
