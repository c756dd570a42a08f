import type pg from 'pg';
import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';

/**
 * SQLSTATE of "cached plan must not change result type": a prepared `SELECT *` whose table gained
 * or lost a column since it was prepared (another daemon ran a migration).
 */
const CHANGED_RESULT = '0A000';

/** Whether `err` is that error (its SQLSTATE is all of "feature not supported", so the message says which). */
export function isStalePlan(err: unknown): boolean {
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  return code === CHANGED_RESULT && /cached plan must not change result type/.test(String(message));
}

/**
 * Which SQL texts run as named (server-side prepared) statements, and under which name. PostgreSQL
 * parses and plans an unnamed statement on every run, and for the lookups every request makes (a
 * token, a box by its path with its owner's name, a box's versions) planning cost 4 to 9 times
 * executing: most of the database's time per request. A named statement is parsed once per
 * connection, and after five runs PostgreSQL keeps a generic plan when it is no worse than the
 * custom ones. A text is named the second time it is seen, so a one-off (an `IN` list of an odd
 * length) costs nothing; at most `max` texts are named, each prepared once on each pooled
 * connection that runs it, and later ones run unnamed: a prepared statement holds 12 KiB (a
 * settings lookup) to 85 KiB (a box by its path with its generic plan) of the server session's
 * memory, so 100 of them cost a connection at most about 8 MiB. The API's hot paths use a few dozen.
 */
export class StatementNames {
  private readonly names = new Map<string, string>();
  private readonly seenOnce = new Set<string>();
  constructor(private readonly max = 100) {}

  /** The name to prepare `sql` under, or undefined to run it unnamed. */
  nameOf(sql: string): string | undefined {
    const name = this.names.get(sql);
    if (name !== undefined || this.names.size >= this.max) return name;
    // The extended protocol takes one statement per text.
    if (sql.includes(';')) return undefined;
    if (!this.seenOnce.delete(sql)) {
      if (this.seenOnce.size >= 4 * this.max) this.seenOnce.clear();
      this.seenOnce.add(sql);
      return undefined;
    }
    // Never reused for another text: a connection refuses a known name with other SQL.
    const fresh = `boxyard_${this.names.size}`;
    this.names.set(sql, fresh);
    return fresh;
  }

  /** How many texts are named (tests). */
  get size(): number {
    return this.names.size;
  }
}

/** What tells the read caches of this daemon's writes (notified-tables.ts). */
export interface WriteTracker {
  /** Before a statement runs: moves on the tables it may write and returns them (null: all), or undefined when it writes none. */
  wrote(sql: string): readonly string[] | null | undefined;
  moveOn(tables: readonly string[] | null): void;
}

const TX_BEGIN = /^\s*(begin|start\s+transaction)\b/i;
const TX_END = /^\s*(commit|rollback|end)\s*$/i;

/**
 * A pooled connection as Kysely's PostgresDialect uses it, running Kysely's queries as named
 * statements. A statement whose result columns changed under it (another daemon migrated) fails
 * once on each connection that prepared it: outside a transaction it runs again unnamed, and
 * the connection is closed when it is given back, taking its stale statements with it; inside a
 * transaction the error stands (the transaction cannot go on after it).
 */
class NamingClient implements PostgresPoolClient {
  private inTransaction = false;
  private stale = false;
  /** Tables the open transaction wrote, moved on again when it ends (null: all). */
  private written: Array<readonly string[] | null> = [];
  constructor(private readonly client: pg.PoolClient, private readonly names: StatementNames, private readonly tracker?: WriteTracker) {}

  query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
  query<R>(cursor: never): never;
  query<R>(sqlOrCursor: string, parameters?: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> {
    if (typeof sqlOrCursor !== 'string') return this.client.query(sqlOrCursor) as never;
    const text = sqlOrCursor;
    const values = parameters as unknown[];
    const ending = TX_END.test(text);
    if (TX_BEGIN.test(text)) this.inTransaction = true;
    else if (ending) this.inTransaction = false;
    const written = this.tracker?.wrote(text);
    const run = this.run<R>(text, values);
    if (!this.tracker) return run;
    const tracker = this.tracker;
    // Moved on again once what was written is committed (or not): reads begun since saw the old rows.
    if (written !== undefined && this.inTransaction) this.written.push(written);
    else if (written !== undefined) return run.finally(() => tracker.moveOn(written));
    if (!ending || this.written.length === 0) return run;
    const all = this.written;
    this.written = [];
    return run.finally(() => { for (const t of all) tracker.moveOn(t); });
  }

  private run<R>(text: string, values: unknown[]): Promise<PostgresQueryResult<R>> {
    const name = this.stale ? undefined : this.names.nameOf(text);
    if (name === undefined) return this.client.query(text, values) as unknown as Promise<PostgresQueryResult<R>>;
    return (this.client.query({ name, text, values }) as unknown as Promise<PostgresQueryResult<R>>).catch((err: unknown) => {
      if (!isStalePlan(err)) throw err;
      this.stale = true;
      if (this.inTransaction) throw err;
      return this.client.query(text, values) as unknown as Promise<PostgresQueryResult<R>>;
    });
  }

  release(): void {
    // true: pg closes the connection instead of pooling it.
    this.client.release(this.stale || undefined);
    this.inTransaction = false;
    for (const t of this.written) this.tracker?.moveOn(t);
    this.written = [];
  }
}

/** The pool Kysely is given: the same connections, each wrapped once. */
export function namingPool(pool: pg.Pool, opts: { waits?: { count: number }; tracker?: WriteTracker; names?: StatementNames } = {}): PostgresPool {
  const { waits = { count: 0 }, tracker, names = new StatementNames() } = opts;
  const wrapped = new WeakMap<pg.PoolClient, NamingClient>();
  return {
    async connect() {
      // Every connection busy and no room for another: this query waits for one (metrics).
      if (pool.idleCount === 0 && pool.totalCount >= (pool.options.max ?? 10)) waits.count++;
      const client = await pool.connect();
      let w = wrapped.get(client);
      if (!w) {
        w = new NamingClient(client, names, tracker);
        wrapped.set(client, w);
      }
      return w;
    },
    end: () => pool.end(),
  };
}
