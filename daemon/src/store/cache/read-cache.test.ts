import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type SqliteStore } from '../db';
import { prepare } from './prepared';
import { ReadCache, cachedQuery } from './read-cache';
import { CATCH_UP_MS } from './table-versions';
import { TableMarks } from './table-clock';
import { WriteGraph } from './write-graph';

/** A clock that vouches for nothing while `keeps` is false (PostgreSQL while its notifications are not heard). */
class Switchable extends TableMarks {
  keeps = false;
  constructor() {
    super(new WriteGraph({ tables: ['settings'], foreignKeys: [], triggers: [] }));
  }
}

let dir: string;
let store: SqliteStore;
const now = '2026-01-01T00:00:00.000Z';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'boxyard-read-cache-'));
  store = openStore(join(dir, 'db.sqlite'));
  const db = store.db;
  await db
    .insertInto('users')
    .values({
      id: 'u1',
      username: 'ann',
      username_key: 'ann',
      email: 'a@x.test',
      email_key: 'a@x.test',
      password_hash: 'x',
      created_at: now,
      updated_at: now,
      is_admin: 0,
    })
    .execute();
  await db
    .insertInto('boxes')
    .values({
      id: 'b1',
      user_id: 'u1',
      organization_id: null,
      name: 'alpha',
      name_key: 'alpha',
      short_description: '',
      description: '',
      private: 0,
      downloads: 0,
      created_at: now,
      updated_at: now,
    })
    .execute();
  await db
    .insertInto('box_versions')
    .values({
      id: 'v1',
      box_id: 'b1',
      version: '1.0.0',
      description: '',
      status: 'active',
      created_at: now,
      updated_at: now,
    })
    .execute();
  await db.insertInto('settings').values({ key: 'k', value: '1' }).execute();
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A cache of one table's rows that counts how often it went to the database. */
function counting(sqlTables: string[], load: () => Promise<unknown>) {
  let loads = 0;
  const cache = new ReadCache<[], unknown>(store.versions, sqlTables, async () => {
    loads++;
    return load();
  });
  return { get: () => cache.get(), loads: () => loads };
}

describe('cachedQuery', () => {
  it('refuses a cache over a name that is no table', () => {
    expect(() => new ReadCache(store.versions, ['nope'], async () => 1)).toThrow(/not tables/);
    expect(() =>
      cachedQuery(
        store.versions,
        prepare(store.db, () => store.db.selectFrom('settings').selectAll()),
        (r) => r,
      ),
    ).not.toThrow();
  });

  it("takes its tables from the query's tree, and asks those raw SQL reads to be named", async () => {
    const withRaw = prepare(store.db, (k: string) =>
      store.db.selectFrom('settings').select(sql<string>`upper(value)`.as('v')).where('key', '=', k),
    );
    expect(() => cachedQuery(store.versions, withRaw, (r) => r)).toThrow(/rawReads/);
    const cache = cachedQuery(store.versions, withRaw, (r) => r, undefined, []);
    expect(await cache.get('k')).toEqual([{ v: '1' }]);
    await store.db.updateTable('settings').set({ value: 'x' }).where('key', '=', 'k').execute();
    expect(await cache.get('k')).toEqual([{ v: 'X' }]);
    await store.db.updateTable('settings').set({ value: '1' }).where('key', '=', 'k').execute();
    // A table only raw SQL reads moves the cache on once named.
    const exists = prepare(store.db, () =>
      store.db.selectFrom('settings').select(sql<number>`(select count(*) from box_versions)`.as('n')).limit(1),
    );
    const counted = cachedQuery(store.versions, exists, (r) => r[0].n, undefined, ['box_versions']);
    const before = await counted.get();
    await store.db
      .insertInto('box_versions')
      .values({
        id: 'v9',
        box_id: 'b1',
        version: '9.0.0',
        description: '',
        status: 'active',
        created_at: now,
        updated_at: now,
      })
      .execute();
    expect(await counted.get()).toBe(before + 1);
    await store.db.deleteFrom('box_versions').where('id', '=', 'v9').execute();
  });
});

describe('ReadCache', () => {
  it('answers from memory until a table it reads changes, whatever else changes', async () => {
    const c = counting(['box_versions'], () => store.db.selectFrom('box_versions').select(['id', 'status']).execute());
    expect(await c.get()).toEqual([{ id: 'v1', status: 'active' }]);
    await c.get();
    expect(c.loads()).toBe(1);
    await store.db.updateTable('settings').set({ value: '2' }).execute();
    await store.db.updateTable('boxes').set({ downloads: 5 }).execute();
    await c.get();
    expect(c.loads()).toBe(1);
    await store.db.updateTable('box_versions').set({ status: 'revoked' }).where('id', '=', 'v1').execute();
    expect(await c.get()).toEqual([{ id: 'v1', status: 'revoked' }]);
    expect(c.loads()).toBe(2);
  });

  it('is cleared by a cascade: deleting a box empties the cache of its versions', async () => {
    await store.db
      .insertInto('boxes')
      .values({
        id: 'b2',
        user_id: 'u1',
        organization_id: null,
        name: 'beta',
        name_key: 'beta',
        short_description: '',
        description: '',
        private: 0,
        downloads: 0,
        created_at: now,
        updated_at: now,
      })
      .execute();
    await store.db
      .insertInto('box_versions')
      .values({
        id: 'v2',
        box_id: 'b2',
        version: '2.0.0',
        description: '',
        status: 'active',
        created_at: now,
        updated_at: now,
      })
      .execute();
    const c = counting(['box_versions'], () =>
      store.db.selectFrom('box_versions').select('id').where('box_id', '=', 'b2').execute(),
    );
    expect(await c.get()).toEqual([{ id: 'v2' }]);
    await store.db.deleteFrom('boxes').where('id', '=', 'b2').execute();
    expect(await c.get()).toEqual([]);
  });

  it('is cleared by a trigger: renaming a box changes what a search reads', async () => {
    const c = counting(['box_search'], () =>
      store.db
        .selectFrom('box_search' as never)
        .select('name' as never)
        .execute(),
    );
    expect(await c.get()).toEqual([{ name: 'alpha' }]);
    await store.db.updateTable('boxes').set({ name: 'gamma' }).where('id', '=', 'b1').execute();
    expect(await c.get()).toEqual([{ name: 'gamma' }]);
  });

  it('sees another connection commit (a CLI command on the same data folder)', async () => {
    const c = counting(['settings'], () =>
      store.db.selectFrom('settings').select('value').where('key', '=', 'k').execute(),
    );
    const before = await c.get();
    const other = new Database(join(dir, 'db.sqlite'));
    other.prepare("UPDATE settings SET value = 'from-elsewhere' WHERE key = 'k'").run();
    other.close();
    // Other connections are caught up with at most once per CATCH_UP_MS.
    await new Promise((resolve) => setTimeout(resolve, CATCH_UP_MS + 1));
    expect(before).not.toEqual([{ value: 'from-elsewhere' }]);
    expect(await c.get()).toEqual([{ value: 'from-elsewhere' }]);
  });

  it('never keeps what a rolled-back transaction wrote', async () => {
    const c = counting(['settings'], () =>
      store.db.selectFrom('settings').select('value').where('key', '=', 'k').execute(),
    );
    const before = await c.get();
    await expect(
      store.db.transaction().execute(async (trx) => {
        await trx.updateTable('settings').set({ value: 'never' }).where('key', '=', 'k').execute();
        // A read while the transaction holds the connection waits for it, then sees the rollback.
        void c.get();
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await c.get()).toEqual(before);
  });

  it('hands out frozen values, since every caller shares them', async () => {
    const c = counting(['settings'], () => store.db.selectFrom('settings').selectAll().execute());
    const rows = (await c.get()) as Array<Record<string, unknown>>;
    expect(() => {
      rows[0].value = 'x';
    }).toThrow(TypeError);
    expect(() => rows.push({})).toThrow(TypeError);
  });

  it('keeps at most max keys, the oldest dropped first', async () => {
    let loads = 0;
    const cache = new ReadCache<[string], string>(
      store.versions,
      ['settings'],
      async (k) => {
        loads++;
        return k;
      },
      2,
    );
    await cache.get('a');
    await cache.get('b');
    await cache.get('a');
    expect(loads).toBe(2);
    await cache.get('c');
    await cache.get('b');
    expect(loads).toBe(3);
    expect(await cache.get('a')).toBe('a');
    expect(loads).toBe(4);
  });

  it('while the clock cannot vouch for anything, loads every time, keeps and freezes nothing', async () => {
    let loads = 0;
    const cache = new ReadCache<[string], { k: string }>(new Switchable(), ['settings'], async (k) => {
      loads++;
      return { k };
    });
    const first = await cache.get('a');
    expect(await cache.get('a')).toEqual({ k: 'a' });
    expect(loads).toBe(2);
    expect(Object.isFrozen(first)).toBe(false);
    expect(cache.peek('a')).toBeUndefined();
    const asked: string[][] = [];
    const many = await cache.getMany(['a', 'b'], async (missing) => {
      asked.push(missing);
      return new Map([['a', { k: 'A' }]]);
    });
    expect(many).toEqual([{ k: 'A' }, undefined]);
    expect(
      await cache.getMany(['a'], async (missing) => {
        asked.push(missing);
        return new Map();
      }),
    ).toEqual([undefined]);
    expect(asked).toEqual([['a', 'b'], ['a']]);
  });

  it('serves nothing it kept while the clock cannot vouch for it, and keeps again once it can', async () => {
    const clock = new Switchable();
    clock.keeps = true;
    let loads = 0;
    const cache = new ReadCache<[string], { k: string }>(clock, ['settings'], async (k) => {
      loads++;
      return { k };
    });
    await cache.get('a');
    await cache.get('a');
    expect(loads).toBe(1);
    clock.keeps = false;
    expect(cache.peek('a')).toBeUndefined();
    await cache.get('a');
    expect(loads).toBe(2);
    clock.keeps = true;
    expect(cache.peek('a')).toEqual({ k: 'a' });
    clock.moveOn(['settings']);
    expect(cache.peek('a')).toBeUndefined();
    clock.moveOn(null);
    await cache.get('a');
    await cache.get('a');
    expect(loads).toBe(3);
  });
});
