import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDatabase, startTestPostgres, type TestPostgres } from '../../../../test/helpers/postgres';
import { openPostgres } from '../postgres';
import type { PostgresStore } from '../db';
import { StatementNames } from './named-statements';

describe('StatementNames', () => {
  it('names a text the second time it is seen, for good, and at most `max` texts', () => {
    const names = new StatementNames(2);
    expect(names.nameOf('select 1')).toBeUndefined();
    const first = names.nameOf('select 1');
    expect(first).toBeDefined();
    expect(names.nameOf('select 1')).toBe(first);
    names.nameOf('select 2');
    expect(names.nameOf('select 2')).not.toBe(first);
    names.nameOf('select 3');
    expect(names.nameOf('select 3')).toBeUndefined();
    expect(names.size).toBe(2);
  });

  it('never names a text of several statements (the extended protocol takes one)', () => {
    const names = new StatementNames();
    for (let i = 0; i < 3; i++) expect(names.nameOf('select 1; select 2')).toBeUndefined();
  });
});

describe('named statements on PostgreSQL', () => {
  let cluster: TestPostgres;
  let store: PostgresStore;
  let other: pg.Client;
  /** The server process of the store's one pooled connection, and the statements prepared on it. */
  const session = async () =>
    (
      await sql<{ pid: number; prepared: number }>`select pg_backend_pid() as pid,
    (select count(*) from pg_prepared_statements where name like 'boxyard_%') as prepared`.execute(store.db)
    ).rows[0];

  beforeAll(async () => {
    cluster = await startTestPostgres();
    await ensureDatabase(cluster.url('postgres'), 'named');
    // One connection, so that every query below runs on the same server session.
    store = await openPostgres(cluster.url('named'), { poolSize: 1 });
    other = new pg.Client({ connectionString: cluster.url('named') });
    await other.connect();
    await other.query('CREATE TABLE named_t (id INTEGER PRIMARY KEY, n BIGINT NOT NULL)');
    await other.query('INSERT INTO named_t VALUES (1, 10), (2, 20)');
  }, 120_000);

  afterAll(async () => {
    await other?.end();
    await store?.close();
    await cluster?.stop();
  });

  const byId = (id: number) =>
    store.db
      .selectFrom('named_t' as never)
      .selectAll()
      .where('id' as never, '=', id as never)
      .execute();

  it('prepares a repeated query once on the connection, with the same answers', async () => {
    const before = (await session()).prepared;
    expect(await byId(1)).toEqual([{ id: 1, n: 10 }]);
    expect(await byId(2)).toEqual([{ id: 2, n: 20 }]);
    const after = await session();
    expect(await byId(3)).toEqual([]);
    expect(await byId(1)).toEqual([{ id: 1, n: 10 }]);
    // The session query itself is named on its second run, the lookup on its second.
    expect(after.prepared).toBeGreaterThan(before);
    expect((await session()).pid).toBe(after.pid);
  });

  it('runs a query again unnamed when another daemon changed the columns it reads, and drops the connection', async () => {
    expect(await byId(1)).toEqual([{ id: 1, n: 10 }]);
    const { pid } = await session();
    await other.query("ALTER TABLE named_t ADD COLUMN note TEXT NOT NULL DEFAULT 'x'");
    expect(await byId(1)).toEqual([{ id: 1, n: 10, note: 'x' }]);
    // The connection holding the stale statement was closed when given back: a new session answers.
    const next = await session();
    expect(next.pid).not.toBe(pid);
    expect(await byId(2)).toEqual([{ id: 2, n: 20, note: 'x' }]);
  });

  it('lets the error stand inside a transaction, which cannot go on after it, and drops the connection', async () => {
    expect(await byId(2)).toEqual([{ id: 2, n: 20, note: 'x' }]);
    await other.query('ALTER TABLE named_t DROP COLUMN note');
    const tx = store.db.transaction().execute(async (trx) =>
      trx
        .selectFrom('named_t' as never)
        .selectAll()
        .where('id' as never, '=', 1 as never)
        .execute(),
    );
    // The same text as byId, run in the transaction: prepared before the column went away.
    await expect(tx).rejects.toMatchObject({ code: '0A000' });
    expect(await byId(1)).toEqual([{ id: 1, n: 10 }]);
  });

  it('once a transaction has ended, runs a stale statement again unnamed, as outside any', async () => {
    const within = await store.db
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute(async (trx) =>
        trx
          .selectFrom('named_t' as never)
          .selectAll()
          .where('id' as never, '=', 2 as never)
          .execute(),
      );
    expect(within).toEqual([{ id: 2, n: 20 }]);
    await other.query("ALTER TABLE named_t ADD COLUMN note TEXT NOT NULL DEFAULT 'y'");
    expect(await byId(1)).toEqual([{ id: 1, n: 10, note: 'y' }]);
  });
});
