/**
 * What read caches (read-cache.ts) ask before serving a kept value: the time to stamp a read with,
 * and whether the tables it read changed since. On SQLite, TableVersions (table-versions.ts)
 * answers it from the daemon's own writes and `PRAGMA data_version`.
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
 * On PostgreSQL other daemons write the same tables and no daemon sees their writes, so nothing
 * read is kept: every read goes to the database.
 */
export class NothingKept implements TableClock {
  readonly keeps = false;
  readonly lookups = { hits: 0, misses: 0 };
  now(): number {
    return 0;
  }

  unchangedSince(): boolean {
    return false;
  }

  checkTables(): void {}
}
