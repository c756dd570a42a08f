import type SqliteDatabase from 'better-sqlite3';
import type { SqliteDatabase as KyselySqliteDatabase, SqliteStatement } from 'kysely';
import { LRUCache } from 'lru-cache';

/**
 * A statement that reads rows as arrays and makes the objects here: better-sqlite3 builds each
 * row object through V8's C++ API, which cost a third more than plain JavaScript does (a page of
 * 100 agents, 10 search hits with their versions). Same objects, same key order; a column named
 * twice keeps its last value, as better-sqlite3 does.
 */
function wrapStatement(stmt: SqliteDatabase.Statement): SqliteStatement {
  if (!stmt.reader) return stmt as unknown as SqliteStatement;
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
    all: (params: ReadonlyArray<unknown>) => (stmt.all(params) as unknown[][]).map(toObject),
    run: (params: ReadonlyArray<unknown>) => stmt.run(params),
    *iterate(params: ReadonlyArray<unknown>) {
      for (const row of stmt.iterate(params) as IterableIterator<unknown[]>) yield toObject(row);
    },
  } as unknown as SqliteStatement;
}

/**
 * The handle Kysely's SQLite driver is given. The driver prepares every query anew, and compiling
 * SQL was the largest single cost of a catalog or box request (about a sixth of the CPU at 10,000
 * boxes): statements are kept by their SQL text instead. Least recently used ones are dropped
 * past `max`, since `IN (?, ?, …)` lists make many texts. A statement still iterating (Kysely's
 * stream()) is busy and cannot run twice at once, so a fresh one is prepared then. (The read
 * caches hear of writes above this, from Kysely's tree: invalidation.ts.)
 */
export function cachedStatements(raw: SqliteDatabase.Database, max = 500): KyselySqliteDatabase {
  const cache = new LRUCache<string, { stmt: SqliteDatabase.Statement; wrapped: SqliteStatement }>({ max });
  return {
    close: () => raw.close(),
    prepare(sql: string) {
      const hit = cache.peek(sql);
      if (hit && !hit.stmt.busy) {
        cache.get(sql);
        return hit.wrapped;
      }
      const stmt = raw.prepare(sql);
      const wrapped = wrapStatement(stmt);
      if (!hit) cache.set(sql, { stmt, wrapped });
      return wrapped;
    },
  };
}
