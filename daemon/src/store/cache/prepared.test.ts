import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type SqliteStore } from '../db';
import { PreparedIdList, prepare } from './prepared';

let dir: string;
let store: SqliteStore;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'boxyard-prepared-'));
  store = openStore(join(dir, 'db.sqlite'));
  for (const [key, value] of [
    ['a', '1'],
    ['b', '2'],
    ['c', '3'],
  ])
    await store.db.insertInto('settings').values({ key, value }).execute();
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('prepare', () => {
  it('runs one compiled query with new values each time, constants kept', async () => {
    const q = prepare(store.db, (key: string, limit: number) =>
      store.db
        .selectFrom('settings')
        .select('value')
        .where('key', '>=', key)
        .where('value', '!=', 'nope')
        .orderBy('key')
        .limit(limit),
    );
    expect(await q.all('b', 5)).toEqual([{ value: '2' }, { value: '3' }]);
    expect(await q.all('a', 1)).toEqual([{ value: '1' }]);
    expect(await q.first('z', 1)).toBeUndefined();
  });

  it('binds an argument used twice in both places', async () => {
    const q = prepare(
      store.db,
      (v: string) => sql<{ n: number }>`select count(*) as n from settings where key = ${v} or value = ${v}`,
    );
    expect(await q.first('1')).toEqual({ n: 1 });
  });

  it('refuses a builder that does not bind every argument', () => {
    expect(() => prepare(store.db, (key: string) => sql`select ${sql.lit(key)} as k`)).toThrow(/bound parameter/);
    expect(() => prepare(store.db, (_unused: string) => sql`select 1`)).toThrow(/bound parameter/);
  });
});

describe('PreparedIdList', () => {
  it('answers any number of ids, padded to a few prepared sizes, in slice order', async () => {
    const keys = Array.from({ length: 1203 }, (_, i) => `k${String(i).padStart(4, '0')}`);
    await store.db
      .insertInto('settings')
      .values(keys.map((key) => ({ key, value: key })))
      .execute();
    const q = new PreparedIdList(store.db, (ids) =>
      store.db.selectFrom('settings').select('key').where('key', 'in', ids).orderBy('key'),
    );
    expect(await q.all([])).toEqual([]);
    expect(await q.all(['k0007'])).toEqual([{ key: 'k0007' }]);
    expect((await q.all(keys.slice(0, 11))).map((r) => r.key)).toEqual(keys.slice(0, 11));
    expect((await q.all([...keys].reverse())).length).toBe(1203);
    expect(await q.all(['nope', 'k0001'])).toEqual([{ key: 'k0001' }]);
  });
});

describe('statements kept by their SQL (statement-cache.ts)', () => {
  it('answers rows as objects in column order, and follows a column added by another connection', async () => {
    const q = () => sql<Record<string, unknown>>`select * from settings where key = ${'a'}`.execute(store.db);
    expect((await q()).rows).toEqual([{ key: 'a', value: '1' }]);
    expect(Object.keys((await q()).rows[0])).toEqual(['key', 'value']);
    const other = new Database(join(dir, 'db.sqlite'));
    other.exec("ALTER TABLE settings ADD COLUMN note TEXT NOT NULL DEFAULT 'n'");
    other.close();
    expect((await q()).rows).toEqual([{ key: 'a', value: '1', note: 'n' }]);
  });
});
