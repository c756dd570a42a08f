import SqliteDatabase from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invalidatingDialect, type WriteTracker } from './invalidation';
import { executeReadOnly, type StatementTables } from './statement-tables';

/** What the dialect told the tracker, in order. */
const events: string[] = [];
const tracker: WriteTracker = {
  beforeWrite(t: StatementTables) {
    if (t.unknown) {
      events.push('before: all');
      return null;
    }
    if (t.writes.length === 0) return undefined;
    const tables = t.writes.map((w) => w.table);
    events.push(`before: ${tables.join(',')}`);
    return tables;
  },
  moveOn(tables) {
    events.push(`moved on: ${tables === null ? 'all' : tables.join(',')}`);
  },
};

let db: Kysely<Record<string, { id: number; n: number }>>;
beforeAll(async () => {
  const raw = new SqliteDatabase(':memory:');
  raw.exec('CREATE TABLE a (id INTEGER PRIMARY KEY, n INTEGER); CREATE TABLE b (id INTEGER PRIMARY KEY, n INTEGER)');
  db = new Kysely({ dialect: invalidatingDialect(new SqliteDialect({ database: raw }), tracker) });
});
afterAll(() => db.destroy());

describe('invalidatingDialect', () => {
  it("moves a write's tables on before it runs and again after it, and a read's not at all", async () => {
    events.length = 0;
    await db.selectFrom('a').selectAll().execute();
    expect(events).toEqual([]);
    await db.insertInto('a').values({ id: 1, n: 1 }).execute();
    expect(events).toEqual(['before: a', 'moved on: a']);
  });

  it('in a transaction, moves them on again only when it ends, committed or rolled back', async () => {
    events.length = 0;
    await db.transaction().execute(async (trx) => {
      await trx.updateTable('a').set({ n: 2 }).execute();
      await trx.deleteFrom('b').execute();
      expect(events).toEqual(['before: a', 'before: b']);
    });
    expect(events).toEqual(['before: a', 'before: b', 'moved on: a', 'moved on: b']);
    events.length = 0;
    await expect(
      db.transaction().execute(async (trx) => {
        await trx.updateTable('b').set({ n: 3 }).execute();
        throw new Error('undo');
      }),
    ).rejects.toThrow('undo');
    expect(events).toEqual(['before: b', 'moved on: b']);
  });

  it('takes a raw statement to write anything, unless run with executeReadOnly', async () => {
    events.length = 0;
    await sql`update a set n = 4`.execute(db);
    expect(events).toEqual(['before: all', 'moved on: all']);
    events.length = 0;
    expect((await executeReadOnly(sql<{ n: number }>`select n from a`, db)).rows).toEqual([{ n: 4 }]);
    // The same text unmarked: a raw statement again.
    await sql`select n from a`.execute(db);
    expect(events).toEqual(['before: all', 'moved on: all']);
  });
});
