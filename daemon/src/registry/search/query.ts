import { sql, type Kysely } from 'kysely';
import type { Database } from '../../store/schema';
import { containsPattern, LIKE_ESCAPE } from '../../store/like';
import { PreparedQuery, type Bound } from '../../store/cache/prepared';
import { cachedQuery, type ReadCache } from '../../store/cache/read-cache';
import type { TableClock } from '../../store/cache/table-clock';
import { boxes } from '../box-query';
import type { BoxRecord } from '../tables';
import { containsPhrase, ftsPhrase, type TextIndex } from './text';
import type { SearchSort } from '../../contract/wire/box-list';

export interface SearchFilter {
  q?: string;
  provider?: string;
  architecture?: string;
  sort: SearchSort;
  order: 'asc' | 'desc';
  limit: number;
  offset: number;
  /** What the caller may see besides public boxes: everything (administrators) or what this user's namespaces own. */
  visible: { all: true } | { userId: string | null };
  /**
   * Only the boxes of this user's namespaces (their own and their organizations'), released or not:
   * the web UI's "Mine" list. Search proper (`GET /search`) lists only boxes with a released version.
   */
  mine?: string;
}

/**
 * Each sort (either way, ties by name then id) has an index of its own: see migrations 007 and 013.
 * Sorting by name, ties (one name in several namespaces) go by id.
 */
const SORT_COLUMN = {
  downloads: 'boxes.downloads',
  created: 'boxes.created_at',
  updated: 'boxes.updated_at',
  name: 'boxes.name_key',
} as const;

/** What decides the SQL of a search; its values are bound. */
interface Shape {
  sort: SearchFilter['sort'];
  order: SearchFilter['order'];
  visible: 'all' | 'public' | 'member' | 'mine';
  text: 'none' | 'like' | 'index';
  provider: boolean;
  architecture: boolean;
}

/** Which boxes the search may see, and the user id that rule binds (the member's, or the namespace owner's). */
function visibilityOf(f: SearchFilter): { visible: Shape['visible']; userId?: string } {
  // A user sees every box of their own namespaces, so "mine" needs no other visibility rule.
  if (f.mine !== undefined) return { visible: 'mine', userId: f.mine };
  if ('all' in f.visible) return { visible: 'all' };
  if (f.visible.userId === null) return { visible: 'public' };
  return { visible: 'member', userId: f.visible.userId };
}

function shapeOf(f: SearchFilter, index: TextIndex): { shape: Shape; args: Bound[] } {
  const { visible, userId } = visibilityOf(f);
  const phrase = f.q ? ftsPhrase(index, f.q) : undefined;
  const args: Bound[] = [];
  if (userId !== undefined) args.push(userId);
  if (phrase) args.push(phrase);
  if (f.q) args.push(containsPattern(f.q.toLowerCase()));
  if (f.provider) args.push(f.provider);
  if (f.architecture) args.push(f.architecture);
  args.push(f.limit, f.offset);
  const shape = {
    sort: f.sort,
    order: f.order,
    visible,
    text: phrase ? 'index' : f.q ? 'like' : 'none',
    provider: !!f.provider,
    architecture: !!f.architecture,
  } as const;
  return { shape, args };
}

/**
 * Tables the raw SQL of build() and containsPhrase read: the read caches see no table in SQL text.
 * The text index's tables only where a shape uses it (SQLite's FTS5: PostgreSQL has none).
 */
const RAW_READS = ['box_versions', 'box_providers', 'memberships'];
const rawReadsOf = (s: Shape) => (s.text === 'index' ? [...RAW_READS, 'box_search_keys', 'box_search'] : RAW_READS);

/** The query of one shape, written with placeholders in the order shapeOf binds them. */
function build(db: Kysely<Database>, s: Shape, a: string[]) {
  let i = 0;
  const next = () => a[i++];
  // Search lists released boxes only; a user's own list shows them all, and filters by any version.
  const released = s.visible !== 'mine';
  let q = boxes(db);
  if (released)
    q = q.where(sql<boolean>`exists (select 1 from box_versions v where v.box_id = boxes.id and v.status = 'active')`);
  if (s.visible === 'public') q = q.where('boxes.private', '=', 0);
  if (s.visible === 'member') {
    const user = next();
    q = q.where(sql<boolean>`(boxes.private = 0 or boxes.user_id = ${user}
      or boxes.organization_id in (select m.organization_id from memberships m where m.user_id = ${user}))`);
  }
  if (s.visible === 'mine') {
    const user = next();
    q = q.where(sql<boolean>`(boxes.user_id = ${user}
      or boxes.organization_id in (select m.organization_id from memberships m where m.user_id = ${user}))`);
  }
  if (s.text === 'index') q = q.where(containsPhrase(next()));
  if (s.text !== 'none') {
    const p = next();
    q =
      q.where(sql<boolean>`(lower(boxes.name) like ${p} ${LIKE_ESCAPE} or lower(boxes.short_description) like ${p} ${LIKE_ESCAPE}
      or lower(coalesce(users.username, organizations.name)) like ${p} ${LIKE_ESCAPE})`);
  }
  if (s.provider || s.architecture) {
    const provider = s.provider ? next() : undefined;
    const architecture = s.architecture ? next() : undefined;
    q = q.where(sql<boolean>`exists (select 1 from box_versions v join box_providers p on p.version_id = v.id
      where v.box_id = boxes.id ${released ? sql`and v.status = 'active'` : sql``}
      ${provider ? sql`and p.name = ${provider}` : sql``} ${architecture ? sql`and p.architecture = ${architecture}` : sql``})`);
  }
  q = q.orderBy(SORT_COLUMN[s.sort], s.order);
  if (s.sort !== 'name') q = q.orderBy('boxes.name_key', 'asc');
  return q
    .orderBy('boxes.id', 'asc')
    .limit(next() as unknown as number)
    .offset(next() as unknown as number);
}

/**
 * Search in SQL: boxes with a released version that the caller may see (or, with `mine`, every
 * box of the user's namespaces), filtered, sorted and paged. Each shape of query (sort, order,
 * who asks, text, filters) is built once and kept (store/cache/prepared.ts): building this query
 * cost as much as running it. Answers are kept in memory until a table they read changes
 * (store/cache/read-cache.ts): the text index alone costs a quarter of a millisecond for a text
 * that most boxes share a part of, and the same few searches (the box list, a popular name) are
 * asked again and again.
 */
export class SearchQueries {
  private readonly prepared = new Map<string, ReadCache<Bound[], readonly BoxRecord[]>>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly versions: TableClock,
    private readonly index: TextIndex,
  ) {}

  run(f: SearchFilter): Promise<readonly BoxRecord[]> {
    const { shape, args } = shapeOf(f, this.index);
    const key = JSON.stringify(shape);
    let q = this.prepared.get(key);
    if (!q) {
      q = cachedQuery(
        this.versions,
        new PreparedQuery<Bound[], BoxRecord>(this.db, (...a: string[]) => build(this.db, shape, a), args.length),
        (rows) => rows,
        200,
        rawReadsOf(shape),
      );
      this.prepared.set(key, q);
    }
    return q.get(...args);
  }
}
