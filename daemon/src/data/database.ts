import { existsSync } from 'node:fs';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { pendingMigrations } from '../store/migrations';
import type { Database } from '../store/schema';

/** A database handle of backup, restore and check. */
export interface DataDb {
  db: Kysely<Database>;
  /** For SQLite's online backup and its integrity check, which Kysely does not speak. */
  raw: SqliteDatabase.Database;
  close(): Promise<void>;
}

/**
 * Opens an existing database as it is: unlike store/db.ts openStore, no migrations (a backup copies
 * what is there; a check must not write), and read-only unless asked (a check without --repair runs
 * beside a serving daemon and changes nothing; SQLite's WAL lets it read while the daemon writes).
 */
export function openDataDb(file: string, opts: { readonly: boolean }): DataDb {
  if (!existsSync(file)) throw new Error(`There is no database at ${file}: is this a Boxyard data folder (--data)?`);
  const raw = new SqliteDatabase(file, { readonly: opts.readonly, fileMustExist: true });
  raw.pragma('busy_timeout = 5000');
  refuseNewerSchema(raw);
  if (!opts.readonly) raw.pragma('foreign_keys = ON');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: raw }) });
  return { db, raw, close: () => db.destroy() };
}

/**
 * A database a newer Boxyard upgraded holds rows this build cannot judge: refused, as at start. A
 * file too damaged to say is left to the check (`damageOf`), which reports it.
 */
function refuseNewerSchema(raw: SqliteDatabase.Database): void {
  let applied: string[];
  try {
    const hasList = raw
      .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
      .get();
    applied = hasList ? (raw.prepare('SELECT name FROM schema_migrations').pluck().all() as string[]) : [];
  } catch {
    return;
  }
  try {
    pendingMigrations('sqlite', new Set(applied));
  } catch (err) {
    raw.close();
    throw err;
  }
}

/**
 * What SQLite's `PRAGMA quick_check` finds wrong with the file: nothing when it is intact. A file
 * too damaged for the check to run (its schema unreadable, not a database at all) says so too.
 */
export function damageOf(raw: SqliteDatabase.Database): string[] {
  let lines: string[];
  try {
    lines = raw.prepare('PRAGMA quick_check').pluck().all() as string[];
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB') return [(err as Error).message];
    throw err;
  }
  return lines.length === 1 && lines[0] === 'ok' ? [] : lines;
}
