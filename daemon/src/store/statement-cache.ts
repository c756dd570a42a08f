import type SqliteDatabase from 'better-sqlite3';
import type { SqliteDatabase as KyselySqliteDatabase } from 'kysely';

/**
 * The handle Kysely's SQLite driver is given. The driver prepares every query anew, and compiling
 * SQL was the largest single cost of a catalog or box request (about a sixth of the CPU at 10,000
 * boxes): statements are kept by their SQL text instead. Least recently used ones are dropped
 * past `max`, since `IN (?, ?, …)` lists make many texts. A statement still iterating (Kysely's
 * stream()) is busy and cannot run twice at once, so a fresh one is prepared then.
 */
export function cachedStatements(raw: SqliteDatabase.Database, max = 500): KyselySqliteDatabase {
  const cache = new Map<string, SqliteDatabase.Statement>();
  return {
    close: () => raw.close(),
    prepare(sql: string) {
      const hit = cache.get(sql);
      if (hit && !hit.busy) {
        // Re-inserting keeps the Map in least-recently-used order.
        cache.delete(sql);
        cache.set(sql, hit);
        return hit;
      }
      const stmt = raw.prepare(sql);
      if (!hit) {
        cache.set(sql, stmt);
        if (cache.size > max) cache.delete(cache.keys().next().value as string);
      }
      return stmt;
    },
  };
}
