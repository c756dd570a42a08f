import type { ExpressionBuilder, Kysely, Selectable, Transaction } from 'kysely';
import type { Database } from '../store/schema';
import type { AgentPoolsTable } from './tables';
import { contains, nameKey } from './workspaces-repository';

export type PoolRow = Selectable<AgentPoolsTable> & { organization_name: string };

/** A pool with everything its resource shows. */
export interface PoolView extends PoolRow {
  agent_count: number;
  workspace_ids: string[];
  allowed_workspace_ids: string[];
  allowed_project_ids: string[];
  excluded_workspace_ids: string[];
}

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
  eb.exists(eb.selectFrom('agent_pool_allowed_projects as p').select('p.pool_id').whereRef('p.pool_id', '=', 'agent_pools.id').where('p.project_id', '=', projectId));

/** HCP Terraform's rule in SQL (see pool-rules.ts): not excluded, and scoped to the organization or allowing it. */
function usableByWorkspace(eb: PoolsEb, ws: { id: string; project_id: string }) {
  return eb.and([
    eb.not(eb.exists(eb.selectFrom('agent_pool_excluded_workspaces as x').select('x.pool_id')
      .whereRef('x.pool_id', '=', 'agent_pools.id').where('x.workspace_id', '=', ws.id))),
    eb.or([
      eb('agent_pools.organization_scoped', '=', 1),
      eb.exists(eb.selectFrom('agent_pool_allowed_workspaces as w').select('w.pool_id')
        .whereRef('w.pool_id', '=', 'agent_pools.id').where('w.workspace_id', '=', ws.id)),
      allowsProject(eb, ws.project_id),
    ]),
  ]);
}

const usableByProject = (eb: PoolsEb, projectId: string) => eb.or([eb('agent_pools.organization_scoped', '=', 1), allowsProject(eb, projectId)]);

/** Statuses that count as a live agent in `agent-count`. */
export const COUNTED_STATUSES = ['idle', 'busy', 'unknown'] as const;

/** The only SQL for agent pools and their allow and exclude lists. */
export class PoolsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  private pools(db: Kysely<Database> = this.db) {
    return db.selectFrom('agent_pools').innerJoin('organizations', 'organizations.id', 'agent_pools.organization_id')
      .selectAll('agent_pools').select('organizations.name as organization_name');
  }

  poolById(id: string) {
    return this.pools().where('agent_pools.id', '=', id).executeTakeFirst();
  }

  async list(orgId: string, q: PoolQuery): Promise<{ rows: PoolRow[]; total: number; matching: number }> {
    const all = this.db.selectFrom('agent_pools').where('organization_id', '=', orgId);
    const total = Number((await all.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    if (q.usableBy === null || q.usableByProject === null) return { rows: [], total, matching: 0 };
    let m = this.pools().where('agent_pools.organization_id', '=', orgId);
    if (q.search) m = m.where(contains('agent_pools.name_key', nameKey(q.search)));
    if (q.usableBy) m = m.where((eb) => usableByWorkspace(eb, q.usableBy!));
    if (q.usableByProject) m = m.where((eb) => usableByProject(eb, q.usableByProject!));
    const matching = Number((await m.clearSelect().select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    const dir = q.sort?.descending ? 'desc' : 'asc';
    const ordered = q.sort?.field === 'name' ? m.orderBy('agent_pools.name_key', dir) : m.orderBy('agent_pools.created_at', dir);
    const rows = await ordered.orderBy('agent_pools.seq', dir).offset(q.offset).limit(q.limit).execute();
    return { rows, total, matching };
  }

  countInOrganization(orgId: string, db: Kysely<Database> = this.db) {
    return db.selectFrom('agent_pools').select((eb) => eb.fn.countAll<number>().as('n'))
      .where('organization_id', '=', orgId).executeTakeFirstOrThrow().then((r) => Number(r.n));
  }

  nameTaken(orgId: string, name: string, exceptId: string | null, db: Kysely<Database> = this.db) {
    let q = db.selectFrom('agent_pools').select('id').where('organization_id', '=', orgId).where('name_key', '=', nameKey(name));
    if (exceptId) q = q.where('id', '!=', exceptId);
    return q.executeTakeFirst().then((r) => r !== undefined);
  }

  /** Runs `fn` in one transaction (create and update check limits and names inside it). */
  transaction<T>(fn: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(fn);
  }

  async insert(trx: Transaction<Database>, row: Omit<Selectable<AgentPoolsTable>, 'seq' | 'name_key'>, lists: PoolLists) {
    const max = await trx.selectFrom('agent_pools').select((eb) => eb.fn.max('seq').as('m')).executeTakeFirst();
    await trx.insertInto('agent_pools').values({ ...row, name_key: nameKey(row.name), seq: Number(max?.m ?? 0) + 1 }).execute();
    await this.replaceLists(trx, row.id, lists);
  }

  async update(trx: Transaction<Database>, id: string, patch: { name?: string; organization_scoped?: number }, lists: PoolLists) {
    const set = { ...patch, ...(patch.name !== undefined ? { name_key: nameKey(patch.name) } : {}) };
    if (Object.keys(set).length) await trx.updateTable('agent_pools').set(set).where('id', '=', id).execute();
    await this.replaceLists(trx, id, lists);
  }

  /** A list given (even `[]`) replaces the stored one; an absent list stays. */
  private async replaceLists(trx: Transaction<Database>, poolId: string, lists: PoolLists) {
    const ws = [['agent_pool_allowed_workspaces', lists.allowedWorkspaceIds], ['agent_pool_excluded_workspaces', lists.excludedWorkspaceIds]] as const;
    for (const [table, ids] of ws) {
      if (!ids) continue;
      await trx.deleteFrom(table).where('pool_id', '=', poolId).execute();
      if (ids.length) await trx.insertInto(table).values([...new Set(ids)].map((workspace_id) => ({ pool_id: poolId, workspace_id }))).execute();
    }
    if (lists.allowedProjectIds) {
      await trx.deleteFrom('agent_pool_allowed_projects').where('pool_id', '=', poolId).execute();
      const ids = [...new Set(lists.allowedProjectIds)];
      if (ids.length) await trx.insertInto('agent_pool_allowed_projects').values(ids.map((project_id) => ({ pool_id: poolId, project_id }))).execute();
    }
  }

  async delete(id: string) {
    await this.db.deleteFrom('agent_pools').where('id', '=', id).execute();
  }

  /** Adds counts and relationship ids to pools, in a few queries for the whole page. */
  async views(rows: PoolRow[]): Promise<PoolView[]> {
    if (rows.length === 0) return [];
    const ids = rows.map((r) => r.id);
    const byPool = (pairs: Array<{ pool_id: string; id: string }>) => {
      const m = new Map<string, string[]>();
      for (const p of pairs) m.set(p.pool_id, [...(m.get(p.pool_id) ?? []), p.id]);
      return m;
    };
    const links = (from: 'agent_pool_allowed_workspaces as l' | 'agent_pool_excluded_workspaces as l') =>
      this.db.selectFrom(from).innerJoin('workspaces', 'workspaces.id', 'l.workspace_id')
        .select(['l.pool_id', 'workspaces.id']).where('l.pool_id', 'in', ids).orderBy('workspaces.created_at').orderBy('workspaces.id').execute();
    const assigned = await this.db.selectFrom('workspaces').select(['workspaces.agent_pool_id as pool_id', 'workspaces.id'])
      .where('workspaces.agent_pool_id', 'in', ids).orderBy('workspaces.created_at').orderBy('workspaces.id').execute();
    const allowed = await links('agent_pool_allowed_workspaces as l');
    const excluded = await links('agent_pool_excluded_workspaces as l');
    const projects = await this.db.selectFrom('agent_pool_allowed_projects as l').innerJoin('projects', 'projects.id', 'l.project_id')
      .select(['l.pool_id', 'projects.id']).where('l.pool_id', 'in', ids).orderBy('projects.created_at').orderBy('projects.id').execute();
    const counts = await this.db.selectFrom('agents').select(['pool_id', (eb) => eb.fn.countAll<number>().as('n')])
      .where('pool_id', 'in', ids).where('status', 'in', COUNTED_STATUSES).groupBy('pool_id').execute();
    const [a, w, x, p] = [byPool(assigned as Array<{ pool_id: string; id: string }>), byPool(allowed), byPool(excluded), byPool(projects)];
    const n = new Map(counts.map((c) => [c.pool_id, Number(c.n)]));
    return rows.map((r) => ({
      ...r,
      agent_count: n.get(r.id) ?? 0,
      workspace_ids: a.get(r.id) ?? [],
      allowed_workspace_ids: w.get(r.id) ?? [],
      allowed_project_ids: p.get(r.id) ?? [],
      excluded_workspace_ids: x.get(r.id) ?? [],
    }));
  }
}
