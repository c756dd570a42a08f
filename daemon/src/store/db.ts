import SqliteDatabase from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { Pool } from 'pg';
import type { Database } from './schema';
import { cachedStatements } from './cache/statement-cache';
import { invalidatingDialect } from './cache/invalidation';
import { TableVersions } from './cache/table-versions';
import { DatabaseDamagedError } from './integrity';
import { isDatabaseDamage } from './storage-errors';
import { MIGRATIONS_DIR, pendingMigrations } from './migrations';
import type { TableClock } from './cache/table-clock';
import type { NotifiedTables } from './cache/notified-tables';

interface StoreBase {
  db: Kysely<Database>;
  /** What read caches (read-cache.ts) are checked against. */
  versions: TableClock;
  close(): Promise<void>;
}

/** The embedded default: the data folder's SQLite file. */
export interface SqliteStore extends StoreBase {
  dialect: 'sqlite';
  /** The raw handle, for the dialect setup, migrations, health, backup and check only. */
  raw: SqliteDatabase.Database;
  /** When each table last changed, from this connection's writes. */
  versions: TableVersions;
}

/** A PostgreSQL database several daemons share (store/postgres.ts). */
export interface PostgresStore extends StoreBase {
  dialect: 'postgres';
  pool: Pool;
  /** When each table last changed, from this daemon's writes and other daemons' notifications. */
  versions: NotifiedTables;
  /** Times a query found every pool connection busy and waited (metrics). */
  poolWaits: { count: number };
}

export type Store = SqliteStore | PostgresStore;

/** Opens (creating if needed) the SQLite database in WAL mode with foreign keys on, and migrates it. */
export function openStore(file: string): SqliteStore {
  const raw = new SqliteDatabase(file);
  try {
    raw.pragma('journal_mode = WAL');
    raw.pragma('foreign_keys = ON');
    raw.pragma('busy_timeout = 5000');
    raw.pragma('synchronous = NORMAL');
    migrate(raw);
  } catch (err) {
    raw.close();
    // "file is not a database" or "database disk image is malformed" alone leave a user stuck.
    if (isDatabaseDamage(err)) throw new DatabaseDamagedError(file, [(err as Error).message]);
    throw err;
  }
  const versions = new TableVersions(raw);
  const db = new Kysely<Database>({
    dialect: invalidatingDialect(new SqliteDialect({ database: cachedStatements(raw) }), versions),
  });
  return { dialect: 'sqlite', db, raw, versions, close: () => db.destroy() };
}

/** Applies the migrations (migrations.ts) not applied yet, in order, each in its own transaction. */
export function migrate(raw: SqliteDatabase.Database, dir = MIGRATIONS_DIR): string[] {
  raw.exec('CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)');
  const done = new Set(raw.prepare('SELECT name FROM schema_migrations').pluck().all() as string[]);
  const applied: string[] = [];
  // Foreign keys off while a migration runs, checked before it commits: a table made again
  // (SQLite's way to change a constraint) must not cascade its DROP into the tables that point at it.
  raw.pragma('foreign_keys = OFF');
  try {
    for (const m of pendingMigrations('sqlite', done, dir)) {
      raw.transaction(() => {
        raw.exec(m.sql);
        const broken = raw.pragma('foreign_key_check') as unknown[];
        if (broken.length > 0)
          throw new Error(
            `migration ${m.name} leaves ${broken.length} rows pointing at missing rows: ${JSON.stringify(broken.slice(0, 3))}`,
          );
        raw
          .prepare('INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)')
          .run(m.name, new Date().toISOString());
      })();
      applied.push(m.name);
    }
  } finally {
    raw.pragma('foreign_keys = ON');
  }
  return applied;
}
