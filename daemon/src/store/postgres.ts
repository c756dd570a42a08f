import pg from 'pg';
import { Kysely, PostgresDialect } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from './schema';
import { ENSURE_NOTIFY_TRIGGERS, NotifiedTables, TABLES_CHANNEL } from './cache/notified-tables';
import { namingPool } from './cache/named-statements';
import { invalidatingDialect } from './cache/invalidation';
import { MIGRATIONS_DIR, pendingMigrations } from './migrations';
import { ADVISORY_LOCKS } from './advisory-locks';
import type { PostgresStore } from './db';

const INT8 = 20;
const NUMERIC = 1700;

/**
 * Column types as SQLite gives them: 64-bit integers (BIGINT columns, count(*)) and sum()'s
 * numeric come back as numbers, not strings. Only integers are stored, all below 2^53 (bytes of
 * a file, counts). Per pool rather than pg's global setTypeParser.
 */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if ((oid === INT8 || oid === NUMERIC) && format !== 'binary') return (v: string) => Number(v);
    return pg.types.getTypeParser(oid, format);
  },
};

/** Opens a PostgreSQL database through a connection pool and migrates it (one daemon at a time). */
export async function openPostgres(
  url: string,
  opts: { log?: Logger; poolSize?: number } = {},
): Promise<PostgresStore> {
  const pool = new pg.Pool({ connectionString: url, max: opts.poolSize ?? 10, types, application_name: 'boxyard' });
  // A pooled connection the server closes (a restart, a failover) is dropped from the pool and
  // reported; the next query opens another. Without a listener it would end the process.
  pool.on('error', (err) => opts.log?.warn({ reason: err.message }, 'a PostgreSQL connection was lost'));
  try {
    await migratePostgres(pool);
  } catch (err) {
    await pool.end();
    throw new Error(`PostgreSQL at ${redacted(url)}: ${(err as Error).message}`);
  }
  let versions: NotifiedTables;
  try {
    versions = await NotifiedTables.open(pool, url, opts.log);
  } catch (err) {
    await pool.end();
    throw new Error(`PostgreSQL at ${redacted(url)}: ${(err as Error).message}`);
  }
  const poolWaits = { count: 0 };
  const db = new Kysely<Database>({
    dialect: invalidatingDialect(new PostgresDialect({ pool: namingPool(pool, { waits: poolWaits }) }), versions),
  });
  const close = async () => {
    await versions.close();
    await db.destroy();
  };
  return { dialect: 'postgres', db, pool, poolWaits, versions, close };
}

/**
 * Applies the migrations not applied yet, all in one transaction, under an advisory lock: daemons
 * started together wait for the first one's migration and then find nothing left to do. Every
 * table gets the trigger that tells other daemons' read caches of writes (cache/notified-tables.ts),
 * and when the schema changed they are told to read it again.
 */
export async function migratePostgres(pool: pg.Pool, dir = MIGRATIONS_DIR): Promise<string[]> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [ADVISORY_LOCKS.migrations]);
    await client.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)',
    );
    const done = new Set(
      (await client.query<{ name: string }>('SELECT name FROM schema_migrations')).rows.map((r) => r.name),
    );
    const applied: string[] = [];
    for (const m of pendingMigrations('postgres', done, dir)) {
      await client.query(m.sql);
      await client.query('INSERT INTO schema_migrations (name, applied_at) VALUES ($1, $2)', [
        m.name,
        new Date().toISOString(),
      ]);
      applied.push(m.name);
    }
    await client.query(ENSURE_NOTIFY_TRIGGERS);
    if (applied.length > 0) await client.query(`NOTIFY ${TABLES_CHANNEL}, '*'`);
    await client.query('COMMIT');
    return applied;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/** The URL without its password, for messages and logs. */
export function redacted(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'the configured database URL';
  }
}
