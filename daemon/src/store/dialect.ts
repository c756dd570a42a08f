import { PostgresAdapter, sql, type QueryExecutorProvider } from 'kysely';
import { executeReadOnly } from './cache/statement-tables';

/** Whether `db` (a Kysely handle or transaction) talks to PostgreSQL rather than SQLite. */
export function isPostgres(db: QueryExecutorProvider): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/** The database server's time: one clock for every daemon sharing it (theirs may differ). */
export async function databaseNow(db: QueryExecutorProvider): Promise<Date> {
  const now = isPostgres(db)
    ? sql<{ now: string }>`select to_char(clock_timestamp() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as now`
    : sql<{ now: string }>`select strftime('%Y-%m-%dT%H:%M:%fZ', 'now') as now`;
  return new Date((await executeReadOnly(now, db)).rows[0].now);
}
