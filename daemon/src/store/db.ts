import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../lib/package-root';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { Database } from './schema';
import { cachedStatements } from './cache/statement-cache';
import { TableVersions } from './cache/table-versions';
import { DatabaseDamagedError } from './integrity';
import { isDatabaseDamage } from './storage-errors';

export interface Store {
  db: Kysely<Database>;
  /** The raw handle, for the dialect setup and migrations only. */
  raw: SqliteDatabase.Database;
  /** When each table last changed: what read caches (read-cache.ts) are checked against. */
  versions: TableVersions;
  close(): Promise<void>;
}

/** Shipped as .sql files beside the sources (the bundle reads them from there too). */
const MIGRATIONS_DIR = join(packageRoot(), 'daemon', 'src', 'store', 'migrations');

/** Opens (creating if needed) the SQLite database in WAL mode with foreign keys on, and migrates it. */
export function openStore(file: string): Store {
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
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: cachedStatements(raw, versions) }) });
  return { db, raw, versions, close: () => db.destroy() };
}

/** Applies numbered `NNN-name.sql` files in order, each in its own transaction, once. */
export function migrate(raw: SqliteDatabase.Database, dir = MIGRATIONS_DIR): string[] {
  raw.exec('CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)');
  const done = new Set(raw.prepare('SELECT name FROM schema_migrations').pluck().all() as string[]);
  const files = readdirSync(dir).filter((f) => /^\d{3}-[\w-]+\.sql$/.test(f)).sort();
  const applied: string[] = [];
  for (const f of files) {
    if (done.has(f)) continue;
    const sql = readFileSync(join(dir, f), 'utf8');
    raw.transaction(() => {
      raw.exec(sql);
      raw.prepare('INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)').run(f, new Date().toISOString());
    })();
    applied.push(f);
  }
  return applied;
}
