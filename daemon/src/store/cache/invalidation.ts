import { LRUCache } from 'lru-cache';
import type { CompiledQuery, DatabaseConnection, Dialect, Driver, QueryResult, TransactionSettings } from 'kysely';
import { READ_ONLY_RAW, markedReadOnly, statementTables, type StatementTables } from './statement-tables';

/** What tells the read caches of this daemon's writes (table-clock.ts's TableMarks). */
export interface WriteTracker {
  /**
   * Before a statement runs: moves on the tables it may write and returns them (null: all), or undefined when it writes
   * none.
   */
  beforeWrite(touched: StatementTables): readonly string[] | null | undefined;
  moveOn(tables: readonly string[] | null): void;
}

/**
 * One connection as the read caches see it. Every statement that may write moves its tables on
 * before it runs, and again once what it wrote is committed (or not): after the statement when no
 * transaction is open, else when the transaction ends. On PostgreSQL's pool a read on another
 * connection may begin between the two and would otherwise keep what it read before the commit as
 * fresh; on SQLite, whose one connection a transaction holds, the second move finds nothing new.
 */
class InvalidatingConnection implements DatabaseConnection {
  /** Tables the open transaction wrote, moved on again when it ends (null: all). */
  private written: Array<readonly string[] | null> = [];
  inTransaction = false;

  constructor(
    readonly inner: DatabaseConnection,
    private readonly tracker: WriteTracker,
    private readonly touched: (q: CompiledQuery) => StatementTables,
  ) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const written = this.tracker.beforeWrite(this.touched(compiled));
    if (written === undefined) return this.inner.executeQuery<R>(compiled);
    if (this.inTransaction) {
      this.written.push(written);
      return this.inner.executeQuery<R>(compiled);
    }
    try {
      return await this.inner.executeQuery<R>(compiled);
    } finally {
      this.tracker.moveOn(written);
    }
  }

  async *streamQuery<R>(compiled: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    const written = this.tracker.beforeWrite(this.touched(compiled));
    if (written !== undefined) this.written.push(written);
    try {
      yield* this.inner.streamQuery<R>(compiled, chunkSize);
    } finally {
      if (!this.inTransaction) this.ended();
    }
  }

  /** The transaction ended, or the connection is given back: what was written moves on again. */
  ended(): void {
    this.inTransaction = false;
    const all = this.written;
    this.written = [];
    for (const t of all) this.tracker.moveOn(t);
  }
}

/** A driver whose connections tell `tracker` of their writes (InvalidatingConnection). */
class InvalidatingDriver implements Driver {
  constructor(
    private readonly inner: Driver,
    private readonly tracker: WriteTracker,
    private readonly touched: (q: CompiledQuery) => StatementTables,
  ) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new InvalidatingConnection(await this.inner.acquireConnection(), this.tracker, this.touched);
  }

  async beginTransaction(c: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    await this.inner.beginTransaction(inner(c), settings);
    (c as InvalidatingConnection).inTransaction = true;
  }

  async commitTransaction(c: DatabaseConnection): Promise<void> {
    try {
      await this.inner.commitTransaction(inner(c));
    } finally {
      (c as InvalidatingConnection).ended();
    }
  }

  async rollbackTransaction(c: DatabaseConnection): Promise<void> {
    try {
      await this.inner.rollbackTransaction(inner(c));
    } finally {
      (c as InvalidatingConnection).ended();
    }
  }

  async savepoint(
    c: DatabaseConnection,
    name: string,
    compile: Parameters<NonNullable<Driver['savepoint']>>[2],
  ): Promise<void> {
    if (!this.inner.savepoint) throw noSavepoints(name);
    await this.inner.savepoint(inner(c), name, compile);
  }

  async rollbackToSavepoint(
    c: DatabaseConnection,
    name: string,
    compile: Parameters<NonNullable<Driver['savepoint']>>[2],
  ): Promise<void> {
    if (!this.inner.rollbackToSavepoint) throw noSavepoints(name);
    await this.inner.rollbackToSavepoint(inner(c), name, compile);
  }

  async releaseSavepoint(
    c: DatabaseConnection,
    name: string,
    compile: Parameters<NonNullable<Driver['savepoint']>>[2],
  ): Promise<void> {
    if (!this.inner.releaseSavepoint) throw noSavepoints(name);
    await this.inner.releaseSavepoint(inner(c), name, compile);
  }

  async releaseConnection(c: DatabaseConnection): Promise<void> {
    (c as InvalidatingConnection).ended();
    await this.inner.releaseConnection(inner(c));
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

const inner = (c: DatabaseConnection) => (c as InvalidatingConnection).inner;
/** Kysely calls the savepoint methods the driver has: this one has them all, as the drivers it wraps do. */
const noSavepoints = (name: string) => new Error(`Savepoint ${name}: the wrapped database driver has no savepoints`);

/**
 * `dialect` with every statement's writes told to `tracker`, classified from the statement's
 * operation-node tree (statement-tables.ts). Each SQL text is classified once, the last `max`
 * texts kept: walking the tree on every run would cost what compiling it does.
 */
export function invalidatingDialect(dialect: Dialect, tracker: WriteTracker, max = 2000): Dialect {
  const known = new LRUCache<string, StatementTables>({ max });
  const touched = (q: CompiledQuery): StatementTables => {
    // Before the texts kept: the same text unmarked is a raw statement that may write anything.
    if (markedReadOnly(q)) return READ_ONLY_RAW;
    let t = known.get(q.sql);
    if (!t) {
      t = statementTables(q.query);
      known.set(q.sql, t);
    }
    return t;
  };
  return {
    createDriver: () => new InvalidatingDriver(dialect.createDriver(), tracker, touched),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
  };
}
