import type { RootOperationNode } from 'kysely';
import { LRUCache } from 'lru-cache';
import type { PreparedQuery, Bound } from './prepared';
import { statementTables } from './statement-tables';
import type { TableClock } from './table-clock';

function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}

interface Kept<V> {
  value: V;
  at: number;
}

/**
 * A read kept in memory, by its arguments, until one of the tables it reads changes
 * (table-versions.ts): the lookups every request repeats — the caller's token, the settings, a
 * box by its path with its versions — cost more in SQLite and in building rows than everything
 * else a catalog request does. Values are frozen, since every caller shares them. At most `max`
 * keys are kept, the one kept longest ago dropped first: a hit does not count as a use (moving an
 * entry on each hit cost more than reloading the rare one dropped while still in use).
 */
export class ReadCache<A extends ReadonlyArray<string | number | null>, V> {
  /** An LRUCache, seen through methods only: a field of its type would make ReadCache<A, V> invariant in V. */
  private readonly entries: { peek(key: string): Kept<V> | undefined; set(key: string, kept: Kept<V>): unknown };
  private readonly tables: string[];

  constructor(
    private readonly versions: TableClock,
    tables: readonly string[],
    private readonly load: (...args: A) => Promise<V>,
    max = 1000,
  ) {
    this.entries = new LRUCache<string, Kept<V>>({ max });
    this.tables = tables.map((t) => t.toLowerCase());
    versions.checkTables(this.tables);
  }

  async get(...args: A): Promise<V> {
    // The clock cannot vouch for anything (PostgreSQL while its notifications are not heard).
    if (!this.versions.vouches() && !(await this.versions.confirm())) {
      this.versions.lookups.misses++;
      return this.load(...args);
    }
    const key = keyOf(args);
    const at = this.versions.now();
    const hit = this.fresh(key);
    if (hit) {
      this.versions.lookups.hits++;
      return hit.value;
    }
    this.versions.lookups.misses++;
    // Stamped before it runs: a write while it runs leaves the entry stale at once.
    return this.keep(key, await this.load(...args), at);
  }

  /**
   * The value for `args` if it is in memory and still good, without loading it: a hot path's look that needs no await.
   */
  peek(...args: A): V | undefined {
    if (!this.versions.vouches()) return undefined;
    this.versions.now();
    const hit = this.fresh(keyOf(args));
    // A miss is counted by the get() that follows it.
    if (hit) this.versions.lookups.hits++;
    return hit?.value;
  }

  /**
   * Values for many one-string keys, those not in memory loaded by one call of `loadMany` (a
   * key it leaves out has the value undefined): a page of search hits is one query when cold.
   */
  async getMany(
    this: ReadCache<[string], V>,
    keys: readonly string[],
    loadMany: (missing: string[]) => Promise<Map<string, V>>,
  ): Promise<V[]> {
    if (!this.versions.vouches() && !(await this.versions.confirm())) {
      this.versions.lookups.misses += keys.length;
      const loaded = keys.length > 0 ? await loadMany([...keys]) : new Map<string, V>();
      return keys.map((k) => loaded.get(k) as V);
    }
    const at = this.versions.now();
    const hits = keys.map((k) => this.fresh(keyOf([k])));
    const missing = keys.filter((_, i) => !hits[i]);
    this.versions.lookups.hits += keys.length - missing.length;
    this.versions.lookups.misses += missing.length;
    const loaded = missing.length > 0 ? await loadMany(missing) : new Map<string, V>();
    return keys.map((k, i) => {
      const hit = hits[i];
      return hit ? hit.value : this.keep(keyOf([k]), loaded.get(k) as V, at);
    });
  }

  private fresh(key: string): { value: V } | undefined {
    const hit = this.entries.peek(key);
    return hit && this.versions.unchangedSince(this.tables, hit.at) ? hit : undefined;
  }

  private keep(key: string, value: V, at: number): V {
    deepFreeze(value);
    this.entries.set(key, { value, at });
    return value;
  }
}

/** One string stands for itself; anything else is written as JSON (which never starts with `s`). */
const keyOf = (args: ReadonlyArray<string | number | null>) =>
  args.length === 1 && typeof args[0] === 'string' ? `s${args[0]}` : JSON.stringify(args);

/** A prepared statement as a read cache sees it: its SQL, and the operation-node tree it was compiled from. */
export interface TreeStatement {
  readonly sql: string;
  readonly node: RootOperationNode;
}

/**
 * The tables statements read, from their Kysely trees (statement-tables.ts), with `rawReads` for
 * their `sql` fragments, which a statement holding any must name.
 */
function tablesRead(statements: readonly TreeStatement[], rawReads: readonly string[] | undefined): string[] {
  const read = statements.map((s) => ({ sql: s.sql, ...statementTables(s.node) }));
  const raw = read.find((r) => r.raw);
  if (raw && !rawReads)
    throw new Error(`a cached query holding raw SQL must name the tables that SQL reads (rawReads): ${raw.sql}`);
  return [...new Set([...read.flatMap((r) => r.reads), ...(rawReads ?? [])])];
}

/**
 * A ReadCache of what `use` makes of a prepared query's rows; the tables are those its Kysely tree
 * reads (statement-tables.ts). SQL text is never read for tables: a query holding `sql` fragments
 * must name the tables they read in `rawReads` (`[]` when they read none, as `coalesce(a, b)`),
 * unless `sql.table()` names them in the tree.
 */
export function cachedQuery<A extends Bound[], R, V>(
  versions: TableClock,
  query: PreparedQuery<A, R>,
  use: (rows: R[]) => V,
  max?: number,
  rawReads?: readonly string[],
): ReadCache<A, V> {
  const tables = tablesRead([query], rawReads);
  return new ReadCache<A, V>(versions, tables, async (...args) => use(await query.all(...args)), max);
}

/**
 * A ReadCache of a value no one query gives: `load` runs the prepared statements `reads` (each of
 * them, and nothing else) and makes the value of their rows. The tables are those their Kysely
 * trees read, as cachedQuery's (`rawReads` likewise).
 */
export function cachedLoad<A extends Bound[], V>(
  versions: TableClock,
  reads: readonly TreeStatement[],
  load: (...args: A) => Promise<V>,
  max?: number,
  rawReads?: readonly string[],
): ReadCache<A, V> {
  return new ReadCache<A, V>(versions, tablesRead(reads, rawReads), load, max);
}
