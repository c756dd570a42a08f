import type { CompiledQuery, Kysely, QueryExecutorProvider, QueryResult, RootOperationNode } from 'kysely';
import type { Database } from '../schema';

/** What a prepared query's builder returns: any Kysely query builder or `sql` template. */
interface Compilable<R> {
  compile(executorProvider: QueryExecutorProvider): CompiledQuery<R>;
}

/** A value a prepared query binds: only what Kysely sends as a parameter. */
export type Bound = string | number | null;

const marker = (i: number) => `\u0000prepared-argument-${i}\u0000`;

/**
 * A query Kysely builds and compiles once, then runs with new values. Building and compiling
 * (immutable, frozen nodes) cost several times the SQLite work of the lookups every request does
 * (a token, a box by its path, a page of agents): at 10,000 boxes those lookups are what the API
 * spends its time on. The builder is called once with placeholders, which must each come out as
 * bound parameters; so its shape may not depend on the values (no `IN` list of varying length).
 * It runs on the database it was prepared for, or in a transaction of it with executeIn (never
 * with execute while a transaction is open: SQLite has one connection, which a transaction holds
 * until it ends, so such a query would wait for it forever).
 */
export class PreparedQuery<A extends Bound[], R> {
  private readonly compiled: CompiledQuery<R>;
  /** Per parameter: the index of the argument it takes, or the constant it keeps. */
  private readonly slots: Array<{ arg: number } | { value: unknown }>;

  /** `build` gets one placeholder per declared parameter, or `arity` of them. */
  constructor(
    private readonly db: Kysely<Database>,
    build: (...args: string[]) => Compilable<R>,
    arity = build.length,
  ) {
    const markers = Array.from({ length: arity }, (_, i) => marker(i));
    this.compiled = build(...markers).compile(db);
    this.slots = this.compiled.parameters.map((p) => {
      const arg = typeof p === 'string' ? markers.indexOf(p) : -1;
      return arg >= 0 ? { arg } : { value: p };
    });
    const used = new Set(this.slots.flatMap((s) => ('arg' in s ? [s.arg] : [])));
    if (used.size !== arity)
      throw new Error(
        `prepared query: each of its ${arity} arguments must be a bound parameter (${this.compiled.sql})`,
      );
  }

  /** The SQL it runs. */
  get sql(): string {
    return this.compiled.sql;
  }

  /** The operation-node tree it was compiled from (read caches take the tables it reads from it). */
  get node(): RootOperationNode {
    return this.compiled.query;
  }

  execute(...args: A): Promise<QueryResult<R>> {
    return this.executeIn(this.db, ...args);
  }

  /** Runs it in `trx`, a transaction on the database it was prepared for. */
  executeIn(trx: Kysely<Database>, ...args: A): Promise<QueryResult<R>> {
    const parameters = this.slots.map((s) => ('arg' in s ? args[s.arg] : s.value));
    return trx.executeQuery<R>({ ...this.compiled, parameters });
  }

  async all(...args: A): Promise<R[]> {
    return (await this.execute(...args)).rows;
  }

  async first(...args: A): Promise<R | undefined> {
    return (await this.execute(...args)).rows[0];
  }
}

/**
 * `prepare(db, (owner: string, limit: number) => db.selectFrom(…).where('owner', '=', owner).limit(limit))`,
 * typed by its builder. The builder gets placeholders standing for its arguments and must hand
 * them to Kysely untouched (compare, insert, limit with them; never compute with them).
 */
export function prepare<P extends Bound[], R>(
  db: Kysely<Database>,
  build: (...args: P) => Compilable<R>,
): PreparedQuery<P, R> {
  return new PreparedQuery<P, R>(db, build as unknown as (...args: string[]) => Compilable<R>);
}

/** List sizes a PreparedIdList prepares for; longer lists run in slices of the largest. */
const LIST_SIZES = [1, 10, 100, 1000];

/**
 * A query over a list of ids (`WHERE id IN (…)`), prepared for a few list sizes: a list is padded
 * with '' (which is no id) up to the next size. Results of slices come in slice order. The
 * largest size keeps a query within the bound-parameter limits of SQLite and PostgreSQL.
 */
export class PreparedIdList<R> {
  private readonly bySize = new Map<number, PreparedQuery<Bound[], R>>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly build: (ids: string[]) => Compilable<R>,
  ) {}

  /** The SQL of a one-id list (a read cache takes the tables it reads from `node`, as every size reads the same). */
  get sql(): string {
    return this.ofSize(1).sql;
  }

  /** The operation-node tree of a one-id list. */
  get node(): RootOperationNode {
    return this.ofSize(1).node;
  }

  async all(ids: readonly string[]): Promise<R[]> {
    const max = LIST_SIZES[LIST_SIZES.length - 1];
    const out: R[] = [];
    for (let i = 0; i < ids.length; i += max) {
      const slice = ids.slice(i, i + max);
      const size = LIST_SIZES.find((s) => s >= slice.length) ?? max;
      out.push(...(await this.ofSize(size).all(...slice, ...new Array<string>(size - slice.length).fill(''))));
    }
    return out;
  }

  private ofSize(size: number): PreparedQuery<Bound[], R> {
    let q = this.bySize.get(size);
    if (!q) {
      q = new PreparedQuery<Bound[], R>(this.db, (...ids: string[]) => this.build(ids), size);
      this.bySize.set(size, q);
    }
    return q;
  }
}
