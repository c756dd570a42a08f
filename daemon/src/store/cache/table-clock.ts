import { WriteGraph, writeOf, type Kind } from './write-graph';

/**
 * What read caches (read-cache.ts) ask before serving a kept value: the time to stamp a read with,
 * and whether the tables it read changed since. On SQLite TableVersions (table-versions.ts)
 * answers it, on PostgreSQL NotifiedTables (notified-tables.ts).
 */
export interface TableClock {
  /** False when nothing read may be kept at all: read caches then only load. */
  readonly keeps: boolean;
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
 * (writer()); a statement whose table cannot be told (DDL) moves every table on. Moving on too
 * much only costs a reload; a table that changed without moving on would serve a stale answer,
 * which is why this sits below every write instead of in the services.
 */
export abstract class TableMarks implements TableClock {
  readonly lookups = { hits: 0, misses: 0 };
  protected clock = 0;
  /** Nothing read before this is still good: another connection committed, or the schema changed. */
  private epoch = 0;
  private readonly lastWrite = new Map<string, number>();

  constructor(protected graph: WriteGraph) {}

  abstract readonly keeps: boolean;

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
   * What a statement that may write calls before each run: it moves on every table the write may
   * change and returns them (null: it moved everything on). Its SQL is read here once, when it is
   * prepared: parsing it on every run was ~1% of the daemon's time under agent reports.
   */
  writer(sql: string): () => readonly string[] | null {
    const w = writeOf(sql);
    return () => {
      if (!w || !this.graph.has(w.table)) {
        this.forgetAll();
        return null;
      }
      const tables = this.graph.affectedBy(w.table, w.kinds, w.columns);
      this.moveOn(tables);
      return tables;
    };
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
