import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../lib/package-root';

export type Dialect = 'sqlite' | 'postgres';

export interface Migration {
  name: string;
  sql: string;
}

/** Shipped as .sql files beside the sources (the bundle reads them from there too). */
export const MIGRATIONS_DIR = join(packageRoot(), 'daemon', 'src', 'store', 'migrations');

const SECTION = /^--\s*@dialect\s+(sqlite|postgres|all)\s*$/;

/**
 * One source for both databases: a migration is SQL both understand, with sections only one of
 * them runs, each opened by a line `-- @dialect sqlite`, `-- @dialect postgres` or
 * `-- @dialect all` (the default). In shared sections PostgreSQL reads INTEGER as BIGINT: SQLite's
 * integers are 64-bit (file sizes, byte counts), PostgreSQL's INTEGER is not. schema-drift.test.ts
 * fails when the two schemas differ in anything but the objects of DIALECT_ONLY.
 */
export function migrationSql(text: string, dialect: Dialect): string {
  let section: Dialect | 'all' = 'all';
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const m = SECTION.exec(line.trim());
    if (m) {
      section = m[1] as Dialect | 'all';
      continue;
    }
    if (section === 'all') out.push(dialect === 'postgres' ? line.replace(/\bINTEGER\b/g, 'BIGINT') : line);
    else if (section === dialect) out.push(line);
  }
  return out.join('\n');
}

/** The numbered `NNN-name.sql` migrations in order, as `dialect` runs them. */
export function readMigrations(dialect: Dialect, dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((f) => /^\d{3}-[\w-]+\.sql$/.test(f))
    .sort()
    .map((name) => ({ name, sql: migrationSql(readFileSync(join(dir, name), 'utf8'), dialect) }));
}

/**
 * Migrations renumbered after builds had shipped them, by the name those builds recorded: the same SQL, so a
 * database that applied one under its old name has applied it (test/upgrade/ serves a database of each build).
 */
const RENUMBERED: Readonly<Record<string, string>> = {
  '013-provider-downloads.sql': '015-provider-downloads.sql',
};

/**
 * The migrations a database that has applied `applied` still needs, in order. A database that has
 * applied one this build does not know was written by a newer Boxyard: it is refused before
 * anything is written to it, since this build cannot know what the newer one's rows mean.
 */
export function pendingMigrations(dialect: Dialect, applied: ReadonlySet<string>, dir = MIGRATIONS_DIR): Migration[] {
  const known = readMigrations(dialect, dir);
  const names = new Set(known.map((m) => m.name));
  const done = new Set([...applied].map((name) => RENUMBERED[name] ?? name));
  const newer = [...done].filter((name) => !names.has(name)).sort();
  if (newer.length > 0) {
    throw new Error(
      `This database was last upgraded by a newer Boxyard: it has migration ${newer.join(', ')}, which this version ` +
        `(whose last is ${known.at(-1)?.name ?? 'none'}) does not know. Run that newer version, or restore a ` +
        'backup made by this one. Nothing was written to the database.',
    );
  }
  return known.filter((m) => !done.has(m.name));
}

/**
 * What only one database has, which the drift test leaves out: search's text index (SQLite's FTS5
 * table with its key table and the triggers that fill it; PostgreSQL's pg_trgm indexes), and the
 * rate-limit counters several daemons share (one daemon on SQLite counts in memory), and the
 * trigger on each PostgreSQL table that tells other daemons of its writes.
 */
export const DIALECT_ONLY = {
  sqlite: {
    tables: /^box_search/,
    triggers: new Set([
      'boxes_search_insert',
      'boxes_search_update',
      'boxes_search_delete',
      'organizations_search_rename',
      'users_search_rename',
    ]),
    indexes: /^$/,
  },
  // The trigger that notifies other daemons' read caches of writes (store/cache/notified-tables.ts).
  postgres: { tables: /^rate_limits$/, triggers: new Set<string>(['boxyard_tables_notify']), indexes: /_trgm$/ },
} as const;
