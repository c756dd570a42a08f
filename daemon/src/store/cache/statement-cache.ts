import type SqliteDatabase from 'better-sqlite3';
import type { SqliteDatabase as KyselySqliteDatabase, SqliteStatement } from 'kysely';
import type { TableVersions } from './table-versions';

/**
 * A statement that reads rows as arrays and makes the objects here: better-sqlite3 builds each
 * row object through V8's C++ API, which cost a third more than plain JavaScript does (a page of
 * 100 agents, 10 search hits with their versions). Same objects, same key order; a column named
 * twice keeps its last value, as better-sqlite3 does.
 */
function wrapStatement(stmt: SqliteDatabase.Statement, wrote: () => void): SqliteStatement {
  if (!stmt.reader) {
    if (stmt.readonly) return stmt as unknown as SqliteStatement;
    return { reader: false, run: (params: ReadonlyArray<unknown>) => (wrote(), stmt.run(params)) } as unknown as SqliteStatement;
  }
  // `INSERT … RETURNING` reads rows and writes.
  const before = stmt.readonly ? () => undefined : wrote;
  let names = stmt.columns().map((c) => c.name);
  stmt.raw(true);
  const toObject = (row: unknown[]) => {
    // SQLite prepares a statement again after a schema change (another process migrating):
    // `SELECT *` may then have other columns.
    if (row.length !== names.length) names = stmt.columns().map((c) => c.name);
    const o: Record<string, unknown> = {};
    for (let i = 0; i < names.length; i++) o[names[i]] = row[i];
    return o;
  };
  return {
    reader: true,
    all: (params: ReadonlyArray<unknown>) => (before(), (stmt.all(params) as unknown[][]).map(toObject)),
    run: (params: ReadonlyArray<unknown>) => (before(), stmt.run(params)),
    *iterate(params: ReadonlyArray<unknown>) {
      before();
      for (const row of stmt.iterate(params) as IterableIterator<unknown[]>) yield toObject(row);
    },
  } as unknown as SqliteStatement;
}

/**
 * The handle Kysely's SQLite driver is given. The driver prepares every query anew, and compiling
 * SQL was the largest single cost of a catalog or box request (about a sixth of the CPU at 10,000
 * boxes): statements are kept by their SQL text instead. Least recently used ones are dropped
 * past `max`, since `IN (?, ?, …)` lists make many texts. A statement still iterating (Kysely's
 * stream()) is busy and cannot run twice at once, so a fresh one is prepared then. Every
 * statement that may write tells `versions` before it runs, for the read caches.
 */
export function cachedStatements(raw: SqliteDatabase.Database, versions: TableVersions, max = 500): KyselySqliteDatabase {
  const cache = new Map<string, { stmt: SqliteDatabase.Statement; wrapped: SqliteStatement }>();
  return {
    close: () => raw.close(),
    prepare(sql: string) {
      const hit = cache.get(sql);
      if (hit && !hit.stmt.busy) {
        // Re-inserting keeps the Map in least-recently-used order.
        cache.delete(sql);
        cache.set(sql, hit);
        return hit.wrapped;
      }
      const stmt = raw.prepare(sql);
      const wrapped = wrapStatement(stmt, stmt.readonly ? () => undefined : versions.writer(sql));
      if (!hit) {
        cache.set(sql, { stmt, wrapped });
        if (cache.size > max) cache.delete(cache.keys().next().value as string);
      }
      return wrapped;
    },
  };
}
