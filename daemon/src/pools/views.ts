import { sql, type Kysely } from 'kysely';
import type { Database } from '../store/schema';
import { prepare } from '../store/cache/prepared';
import { cachedQuery } from '../store/cache/read-cache';
import type { TableClock } from '../store/cache/table-clock';
import type { PoolRow, PoolView } from './tables';

/** A pool's relationship lists, as its resource names them. */
type Relation = 'workspaces' | 'allowed-workspaces' | 'excluded-workspaces' | 'allowed-projects';

/** The four lists of the pools in one query (a UNION ALL), each in creation order. */
function relations(db: Kysely<Database>, ids: string[]) {
  const linked = (from: 'agent_pool_allowed_workspaces' | 'agent_pool_excluded_workspaces', rel: Relation) =>
    db
      .selectFrom(`${from} as l`)
      .innerJoin('workspaces as w', 'w.id', 'l.workspace_id')
      .select([sql.lit<Relation>(rel).as('rel'), 'l.pool_id as pool_id', 'w.id as id', 'w.created_at as at'])
      .where('l.pool_id', 'in', ids);
  return db
    .selectFrom('workspaces as w')
    .select([
      sql.lit<Relation>('workspaces').as('rel'),
      sql<string>`w.agent_pool_id`.as('pool_id'),
      'w.id as id',
      'w.created_at as at',
    ])
    .where('w.agent_pool_id', 'in', ids)
    .unionAll(linked('agent_pool_allowed_workspaces', 'allowed-workspaces'))
    .unionAll(linked('agent_pool_excluded_workspaces', 'excluded-workspaces'))
    .unionAll(
      db
        .selectFrom('agent_pool_allowed_projects as l')
        .innerJoin('projects as p', 'p.id', 'l.project_id')
        .select([
          sql.lit<Relation>('allowed-projects').as('rel'),
          'l.pool_id as pool_id',
          'p.id as id',
          'p.created_at as at',
        ])
        .where('l.pool_id', 'in', ids),
    )
    .orderBy('at')
    .orderBy('id');
}

/**
 * Adds the relationship ids to a page of pools in one query, whatever the page size; built once
 * for a single pool (show, create, update, an organization's only pool), since building this
 * union cost more than running it, and kept in memory until its tables change. `agent_count`
 * comes with the rows already.
 */
export class PoolViews {
  private readonly ofOne;
  /**
   * The view of a pool row kept in memory, per list of relationships, both from the read caches:
   * while neither changes, a list of that pool answers the same frozen view, and its answer is
   * serialized once (http/answer-memo.ts: the pools list, with one pool per organization, spent
   * a fifth of its time building the view and the document and serializing it).
   */
  private readonly kept = new WeakMap<object, WeakMap<PoolRow, PoolView>>();

  constructor(
    private readonly db: Kysely<Database>,
    versions: TableClock,
  ) {
    // Its raw SQL (`w.agent_pool_id`) reads only the tables it joins.
    this.ofOne = cachedQuery(
      versions,
      prepare(db, (id: string) => relations(db, [id])),
      (rows) => rows,
      undefined,
      [],
    );
  }

  async of(rows: readonly PoolRow[]): Promise<PoolView[]> {
    if (rows.length === 0) return [];
    const found =
      rows.length === 1
        ? await this.ofOne.get(rows[0].id)
        : await relations(
            this.db,
            rows.map((r) => r.id),
          ).execute();
    const cached = rows.length === 1 && Object.isFrozen(rows[0]) && Object.isFrozen(found);
    if (cached) {
      const view = this.kept.get(found)?.get(rows[0]);
      if (view) return [view];
    }
    const views = this.build(rows, found);
    if (cached) {
      let byRow = this.kept.get(found);
      if (!byRow) {
        byRow = new WeakMap();
        this.kept.set(found, byRow);
      }
      const v = views[0];
      for (const ids of [v.workspace_ids, v.allowed_workspace_ids, v.allowed_project_ids, v.excluded_workspace_ids])
        Object.freeze(ids);
      byRow.set(rows[0], Object.freeze(v));
    }
    return views;
  }

  private build(
    rows: readonly PoolRow[],
    found: ReadonlyArray<{ pool_id: string; rel: Relation; id: string }>,
  ): PoolView[] {
    const lists = new Map<string, string[]>();
    for (const f of found) {
      const key = `${f.pool_id}\u0000${f.rel}`;
      const list = lists.get(key);
      if (list) list.push(f.id);
      else lists.set(key, [f.id]);
    }
    const list = (poolId: string, rel: Relation) => lists.get(`${poolId}\u0000${rel}`) ?? [];
    return rows.map((r) => ({
      ...r,
      workspace_ids: list(r.id, 'workspaces'),
      allowed_workspace_ids: list(r.id, 'allowed-workspaces'),
      allowed_project_ids: list(r.id, 'allowed-projects'),
      excluded_workspace_ids: list(r.id, 'excluded-workspaces'),
    }));
  }
}
