import type { WriteGraph } from './write-graph';
import type { Kind, StatementTables } from './statement-tables';
import type { WriteTracker } from './invalidation';

/**
 * What read caches (read-cache.ts) ask before serving a kept value: the time to stamp a read with,
 * and whether the tables it read changed since. On SQLite TableVersions (table-versions.ts)
 * answers it, on PostgreSQL NotifiedTables (notified-tables.ts).
 */
export interface TableClock {
  /** False when nothing read may be kept at all: read caches then only load. */
  readonly keeps: boolean;
  /**
   * What a read asks before it serves from memory: `keeps`, and on PostgreSQL the listening connection is asked ahead
   * for the next confirmation (notified-tables.ts).
   */
  vouches(): boolean;
  /** When it does not vouch: whether it does once it has made sure (PostgreSQL waits for its listening connection). */
  confirm(): Promise<boolean>;
  /** Read-cache lookups served from memory or loaded, counted by the caches for metrics. */
  readonly lookups: { hits: number; misses: number };
  now(): number;
  unchangedSince(tables: readonly string[], at: number): boolean;
  /** Throws unless every name is a table: a cache keyed on a misread name would never be cleared. */
  checkTables(names: readonly string[]): void;
}

/**
 * When each table last changed, as far as this daemon knows: both databases' clocks, which differ
 * in how they learn of writes. Every statement that may write moves its tables on before it runs
 * (beforeWrite()); a statement whose table cannot be told (DDL, raw SQL) moves every table on. Moving on too
 * much only costs a reload; a table that changed without moving on would serve a stale answer,
 * which is why this sits below every write instead of in the services.
 */
export abstract class TableMarks implements TableClock, WriteTracker {
  readonly lookups = { hits: 0, misses: 0 };
  protected clock = 0;
  /** Nothing read before this is still good: another connection committed, or the schema changed. */
  private epoch = 0;
  private readonly lastWrite = new Map<string, number>();

  constructor(protected graph: WriteGraph) {}

  abstract readonly keeps: boolean;

  vouches(): boolean {
    return this.keeps;
  }

  async confirm(): Promise<boolean> {
    return this.keeps;
  }

  /** The time to stamp a read with, taken before it runs. */
  now(): number {
    return this.clock;
  }

  /** Whether none of `tables` changed after `at` (a time from now()). Call now() first. */
  unchangedSince(tables: readonly string[], at: number): boolean {
    if (this.epoch > at || !this.keeps) return false;
    for (const t of tables) if ((this.lastWrite.get(t) ?? 0) > at) return false;
    return true;
  }

  checkTables(names: readonly string[]): void {
    this.graph.checkTables(names);
  }

  /**
   * What a statement calls before it runs (invalidation.ts): moves on every table its writes may
   * change and returns them, null when it moved everything on (a write whose table cannot be told,
   * or one the schema does not know), undefined when it writes nothing.
   */
  beforeWrite(touched: StatementTables): readonly string[] | null | undefined {
    if (!touched.unknown && touched.writes.length === 0) return undefined;
    if (touched.unknown || touched.writes.some((w) => !this.graph.has(w.table))) {
      this.forgetAll();
      return null;
    }
    const tables =
      touched.writes.length === 1
        ? this.graph.affectedBy(touched.writes[0].table, touched.writes[0].kinds, touched.writes[0].columns)
        : [...new Set(touched.writes.flatMap((w) => this.graph.affectedBy(w.table, w.kinds, w.columns)))];
    this.moveOn(tables);
    return tables;
  }

  /** Every table a write of `kind` to `table` may change (write-graph.ts). */
  affectedBy(table: string, kind?: Kind, columns?: readonly string[]): string[] {
    return this.graph.affectedBy(table, kind ? [kind] : undefined, columns);
  }

  /** Moves `tables` on (null: everything). */
  moveOn(tables: readonly string[] | null): void {
    if (tables === null) {
      this.forgetAll();
      return;
    }
    const at = ++this.clock;
    for (const t of tables) this.lastWrite.set(t, at);
  }

  /** Nothing read so far is good any more. */
  protected forgetAll(): void {
    this.epoch = ++this.clock;
  }
}
