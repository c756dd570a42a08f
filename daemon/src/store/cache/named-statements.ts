import type pg from 'pg';
import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import { LRUCache } from 'lru-cache';

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
 * connection that runs it, and later ones run unnamed (a name is never dropped: connections
 * hold it): a prepared statement holds 12 KiB (a settings lookup) to 85 KiB (a box by its path
 * with its generic plan) of the server session's memory, so 100 of them cost a connection at most
 * about 8 MiB. The API's hot paths use a few dozen. The texts seen once are the last 4 × `max`.
 */
export class StatementNames {
  private readonly names = new Map<string, string>();
  private readonly seenOnce: LRUCache<string, true>;
  constructor(private readonly max = 100) {
    this.seenOnce = new LRUCache({ max: 4 * max });
  }

  /** The name to prepare `sql` under, or undefined to run it unnamed. */
  nameOf(sql: string): string | undefined {
    const name = this.names.get(sql);
    if (name !== undefined || this.names.size >= this.max) return name;
    // The extended protocol takes one statement per text.
    if (sql.includes(';')) return undefined;
    if (!this.seenOnce.delete(sql)) {
      this.seenOnce.set(sql, true);
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

/**
 * A pooled connection as Kysely's PostgresDialect uses it, running Kysely's queries as named
 * statements. A statement whose result columns changed under it (another daemon migrated) fails
 * once on each connection that prepared it: outside a transaction it runs again unnamed, and
 * the connection is closed when it is given back, taking its stale statements with it; inside a
 * transaction the error stands (the transaction cannot go on after it).
 */
class NamingClient implements PostgresPoolClient {
  private stale = false;
  constructor(
    private readonly client: pg.PoolClient,
    private readonly names: StatementNames,
  ) {}

  query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
  query(cursor: never): never;
  query<R>(sqlOrCursor: string, parameters?: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> {
    if (typeof sqlOrCursor !== 'string') return this.client.query(sqlOrCursor) as never;
    return this.run<R>(sqlOrCursor, parameters as unknown[]);
  }

  private run<R>(text: string, values: unknown[]): Promise<PostgresQueryResult<R>> {
    const name = this.stale ? undefined : this.names.nameOf(text);
    if (name === undefined) return this.client.query(text, values) as unknown as Promise<PostgresQueryResult<R>>;
    return (this.client.query({ name, text, values }) as unknown as Promise<PostgresQueryResult<R>>).catch(
      (err: unknown) => {
        if (!isStalePlan(err)) throw err;
        this.stale = true;
        if (this.inTransaction()) throw err;
        return this.client.query(text, values) as unknown as Promise<PostgresQueryResult<R>>;
      },
    );
  }

  /**
   * Whether a transaction is open on the connection, as the server last told it (the status of its
   * ReadyForQuery, which pg keeps): `T` in a transaction, `E` in one an error has failed, `I` in
   * none. No SQL text is read: Kysely's `begin` or `start transaction …`, a raw `BEGIN`, `COMMIT`
   * and savepoints are all seen alike. Asked as a statement fails, it is the status from before
   * the statement (`T` or `I`) or the one its error left (`E` or `I`): either way, a transaction
   * is open unless it is `I`.
   */
  private inTransaction(): boolean {
    const status = this.client.getTransactionStatus();
    return status === 'T' || status === 'E';
  }

  release(): void {
    // true: pg closes the connection instead of pooling it.
    this.client.release(this.stale || undefined);
  }
}

/** The pool Kysely is given: the same connections, each wrapped once. */
export function namingPool(
  pool: pg.Pool,
  opts: { waits?: { count: number }; names?: StatementNames } = {},
): PostgresPool {
  const { waits = { count: 0 }, names = new StatementNames() } = opts;
  const wrapped = new WeakMap<pg.PoolClient, NamingClient>();
  return {
    async connect() {
      // Every connection busy and no room for another: this query waits for one (metrics).
      if (pool.idleCount === 0 && pool.totalCount >= (pool.options.max ?? 10)) waits.count++;
      const client = await pool.connect();
      let w = wrapped.get(client);
      if (!w) {
        w = new NamingClient(client, names);
        wrapped.set(client, w);
      }
      return w;
    },
    end: () => pool.end(),
  };
}
