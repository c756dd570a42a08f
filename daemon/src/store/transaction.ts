import { sql, type Kysely, type Transaction } from 'kysely';
import { isPostgres } from './dialect';
import { isStalePlan } from './cache/named-statements';
import { executeReadOnly } from './cache/statement-tables';
import { retrying, type Backoff } from '../lib/backoff';

/**
 * PostgreSQL's "could not serialize access" and "deadlock detected", and "cached plan must not
 * change result type" (another daemon migrated under a prepared statement; its connection is
 * closed when given back, cache/named-statements.ts): the transaction may simply run again.
 */
const RETRYABLE = new Set(['40001', '40P01']);

function retryable(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return (typeof code === 'string' && RETRYABLE.has(code)) || isStalePlan(err);
}
/**
 * PostgreSQL tracks what a SERIALIZABLE transaction read by index page, so transactions writing
 * neighbouring rows (50 clients publishing at once in test/system/load.test.ts) are refused now and then
 * without a true conflict: enough attempts, with a growing pause, that a busy moment passes.
 */
const ATTEMPTS = 30;
/** Spread the retries of transactions that keep meeting each other: a random wait below 2, 4, … 128 ms. */
const SPREAD: Backoff = { firstMs: 2, maxMs: 128, jitter: 'full' };

/**
 * Runs `fn` in one transaction that behaves as if no other ran at the same time, on both
 * databases. SQLite gives that by itself (one writer at a time). PostgreSQL does at SERIALIZABLE,
 * where a transaction that raced another is refused and runs again here: so the rules services
 * check inside a transaction (an organization's pool limit, a free name, the last owner, the next
 * number of a list) hold when several daemons write at once. `fn` may run more than once: it
 * must only touch the database.
 */
export function inTransaction<DB, T>(db: Kysely<DB>, fn: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
  if (!isPostgres(db)) return db.transaction().execute(fn);
  return retried(() => db.transaction().setIsolationLevel('serializable').execute(fn));
}

/**
 * Runs `fn` in one transaction for one commit, where no rule spans its statements (a batch of
 * updates each conditioned on its own row): PostgreSQL's default READ COMMITTED, which SERIALIZABLE
 * would make refuse batches of neighbouring rows from two daemons. Retried on a deadlock or a
 * stale plan; `fn` must write rows in a stable order (by key) so that two batches do not deadlock.
 */
export function inBatch<DB, T>(db: Kysely<DB>, fn: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
  if (!isPostgres(db)) return db.transaction().execute(fn);
  return retried(() => db.transaction().execute(fn));
}

/**
 * Runs `fn` in one transaction that first takes the advisory lock `key` (advisory-locks.ts): transactions of one key
 * run one after another, each seeing what the one before it committed (READ COMMITTED takes a new snapshot per
 * statement, after the lock). For a rule that reads then writes one hot spot, the next number of a list, where
 * SERIALIZABLE refuses all but one of the transactions that ran at once: 8 agents registering together ran out of
 * retries on a busy machine. SQLite has one writer: a plain transaction.
 */
export function inTurn<DB, T>(db: Kysely<DB>, key: number, fn: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
  if (!isPostgres(db)) return db.transaction().execute(fn);
  return retried(() =>
    db.transaction().execute(async (trx) => {
      await executeReadOnly(sql`select pg_advisory_xact_lock(${key})`, trx);
      return fn(trx);
    }),
  );
}

function retried<T>(run: () => Promise<T>): Promise<T> {
  return retrying(run, { backoff: SPREAD, attempts: ATTEMPTS, retryable });
}
