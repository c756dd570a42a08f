import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnDaemon, type SpawnedDaemon } from '../helpers/spawn-daemon';
import { ensureDatabase, startTestPostgres, type TestPostgres } from '../helpers/postgres';
import { ADMIN } from '../helpers/daemon';
import { HttpClient } from '../helpers/http';
import { startS3Server, type TestS3 } from '../helpers/s3-server';
import { openPostgres } from '../../daemon/src/store/postgres';
import { ReadCache } from '../../daemon/src/store/cache/read-cache';
import { UNNOTIFIED } from '../../daemon/src/store/cache/notified-tables';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The daemon's read-cache lookups so far, from its /metrics (asked over loopback). */
async function lookups(d: SpawnedDaemon): Promise<{ hit: number; miss: number }> {
  const text = await (await fetch(`${d.url}/metrics`)).text();
  const count = (result: string) => {
    const m = new RegExp(`^boxyard_read_cache_lookups_total\\{result="${result}"\\} (\\d+)`, 'm').exec(text);
    assert(m, `no read-cache ${result}s in /metrics`);
    return Number(m[1]);
  };
  return { hit: count('hit'), miss: count('miss') };
}

/** Whether `read` was answered from memory alone: read-cache hits and not one miss. */
async function fromMemory(d: SpawnedDaemon, read: () => Promise<unknown>): Promise<boolean> {
  const before = await lookups(d);
  await read();
  const after = await lookups(d);
  return after.miss === before.miss && after.hit > before.hit;
}

/**
 * Read caches on PostgreSQL: each daemon keeps what it read, sees its own writes at
 * once, and hears of the other daemon's writes through PostgreSQL's notifications; while it cannot
 * hear them it serves nothing from memory.
 */
describe('read caches on two daemons sharing one PostgreSQL database', () => {
  let cluster: TestPostgres;
  let s3: TestS3;
  let admin: pg.Client;
  const dirs: string[] = [];
  let a: SpawnedDaemon;
  let b: SpawnedDaemon;
  let viaA: HttpClient;
  let viaB: HttpClient;

  const start = async (keyFrom?: string) => {
    const dir = mkdtempSync(join(tmpdir(), 'boxyard-pg-caches-'));
    dirs.push(dir);
    if (keyFrom) copyFileSync(join(keyFrom, 'secret.key'), join(dir, 'secret.key'));
    return {
      d: await spawnDaemon({
        dataDir: dir,
        env: { BOXYARD_DATABASE_URL: cluster.url('caches'), BOXYARD_BLOBS: s3.url('caches/'), ...s3.env },
      }),
      dir,
    };
  };
  const description = async (via: HttpClient) => {
    const r = await via.get('/api/v1/box/admin/shared');
    expect(r.status, r.text).toBe(200);
    return r.json.short_description as string;
  };
  const describeAs = async (text: string) => {
    const r = await viaA.put('/api/v1/box/admin/shared', { box: { short_description: text } });
    expect(r.status, r.text).toBe(200);
  };
  /** Whether B serves its reads from memory again within 5 s (once it listens, after a read to load them). */
  const servingFromMemory = async () => {
    for (let i = 0; i < 50; i++) {
      await description(viaB);
      if (await fromMemory(b, () => description(viaB))) return true;
      await sleep(100);
    }
    return false;
  };
  /** The server processes of both daemons' listening connections. */
  const listeners = async () =>
    (
      await admin.query<{ pid: number }>(
        "SELECT pid FROM pg_stat_activity WHERE application_name = 'boxyard-notify' AND datname = 'caches'",
      )
    ).rows.map((r) => r.pid);

  beforeAll(async () => {
    cluster = await startTestPostgres();
    s3 = await startS3Server({ engine: 's3rver' });
    await ensureDatabase(cluster.url('postgres'), 'caches');
    admin = new pg.Client({ connectionString: cluster.url('caches') });
    await admin.connect();
    const first = await start();
    a = first.d;
    b = (await start(first.dir)).d;
    const r = await new HttpClient(a.url).post('/api/v1/authenticate', {
      user: { login: ADMIN.username, password: ADMIN.password },
    });
    expect(r.status, r.text).toBe(200);
    const token = (r.json as { token: string }).token;
    viaA = new HttpClient(a.url, token);
    // Anonymous: B's reads look up no token, whose last use A may write now and then.
    viaB = new HttpClient(b.url);
    expect(
      (
        await viaA.post('/api/v1/boxes', {
          box: { username: 'admin', name: 'shared', is_private: false, short_description: 'first' },
        })
      ).status,
    ).toBe(200);
  }, 120_000);

  afterAll(async () => {
    await a?.kill('SIGKILL');
    await b?.kill('SIGKILL');
    await admin?.end();
    await s3?.close();
    await cluster?.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('serves repeated reads from memory, and a daemon sees its own writes at once', async () => {
    expect(await description(viaB)).toBe('first');
    // B's listening connection may still be starting on a busy machine: nothing is kept until it listens.
    expect(await servingFromMemory()).toBe(true);
    expect(await fromMemory(b, async () => expect(await description(viaB)).toBe('first'))).toBe(true);
    for (let i = 0; i < 30; i++) {
      await describeAs(`own ${i}`);
      expect(await description(viaA)).toBe(`own ${i}`);
    }
  });

  // How soon (p99 of 200 writes) is measured in bench/ (`npm run bench -- scale-out`, staleness.ts), not asserted here.
  it('another daemon sees each of 200 writes, and serves from memory once it has heard of the last', async () => {
    for (let i = 0; i < 200; i++) {
      await description(viaB);
      await describeAs(`seen ${i}`);
      let seen = await description(viaB);
      for (let tries = 0; seen !== `seen ${i}` && tries < 1000; tries++) seen = await description(viaB);
      expect(seen).toBe(`seen ${i}`);
    }
    // Nothing written since: B's reads come from memory, and still show the last write.
    expect(await servingFromMemory()).toBe(true);
    expect(await fromMemory(b, async () => expect(await description(viaB)).toBe('seen 199'))).toBe(true);
  });

  it('a lost listening connection drops the caches and listens again; nothing stale is served meanwhile', async () => {
    await description(viaB);
    expect(await description(viaB)).toBe('seen 199');
    const pids = await listeners();
    expect(pids).toHaveLength(2);
    await admin.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [pids]);
    // pg_terminate_backend only signals: a busy server takes a while to end them. A write committed meanwhile, within
    // the liveness bound (notified-tables.ts, 80 ms since the last heartbeat answered), may be read stale, as any
    // write is for that long; once the connections are gone and the bound has passed, nothing stale may be served.
    for (let i = 0; i < 100 && (await listeners()).some((p) => pids.includes(p)); i++) await sleep(50);
    expect((await listeners()).filter((p) => pids.includes(p))).toEqual([]);
    await sleep(300);
    await describeAs('after the loss');
    expect(await description(viaB)).toBe('after the loss');
    // Listening again (new server processes), and serving from memory again.
    let again: number[] = [];
    for (let i = 0; i < 100 && again.length < 2; i++) {
      await sleep(100);
      again = (await listeners()).filter((p) => !pids.includes(p));
    }
    expect(again).toHaveLength(2);
    expect(await servingFromMemory()).toBe(true);
    await describeAs('heard again');
    let seen = await description(viaB);
    for (let tries = 0; seen !== 'heard again' && tries < 100; tries++) seen = await description(viaB);
    expect(seen).toBe('heard again');
  });

  it('a listening connection whose server stops answering stops the caches: a write it cannot hear of is still seen', async () => {
    await description(viaB);
    expect(await description(viaB)).toBe('heard again');
    const pids = await listeners();
    expect(pids).toHaveLength(2);
    for (const pid of pids) process.kill(pid, 'SIGSTOP');
    try {
      // Past the heartbeat's bound: the caches no longer vouch for anything.
      await sleep(300);
      await describeAs('while deaf');
      expect(await description(viaB)).toBe('while deaf');
      expect(await fromMemory(b, () => description(viaB))).toBe(false);
    } finally {
      for (const pid of pids) process.kill(pid, 'SIGCONT');
    }
    // Answering again: memory serves again.
    expect(await servingFromMemory()).toBe(true);
    expect(await description(viaB)).toBe('while deaf');
  });

  it('a migration heard of (`*`) drops everything kept and reads the schema again, then serves from memory', async () => {
    expect(await servingFromMemory()).toBe(true);
    const kept = await description(viaB);
    // A write nobody is told of (its trigger off, as no Boxyard write is): B keeps what it read.
    await admin.query('ALTER TABLE boxes DISABLE TRIGGER boxyard_tables_notify');
    try {
      await admin.query("UPDATE boxes SET short_description = 'behind its back' WHERE name = 'shared'");
      expect(await description(viaB)).toBe(kept);
      // What a migration notifies when it commits.
      await admin.query("SELECT pg_notify('boxyard_tables', '*')");
      let seen = await description(viaB);
      for (let tries = 0; seen !== 'behind its back' && tries < 100; tries++) {
        await sleep(20);
        seen = await description(viaB);
      }
      expect(seen).toBe('behind its back');
    } finally {
      await admin.query('ALTER TABLE boxes ENABLE TRIGGER boxyard_tables_notify');
    }
    expect(await servingFromMemory()).toBe(true);
    await describeAs('after the schema');
    let seen = await description(viaB);
    for (let tries = 0; seen !== 'after the schema' && tries < 100; tries++) seen = await description(viaB);
    expect(seen).toBe('after the schema');
  });

  it("reads what a write may change from PostgreSQL's catalog, and gives every table but the unread ones the notifying trigger", async () => {
    const store = await openPostgres(cluster.url('caches'));
    try {
      const clock = store.versions;
      expect(clock.affectedBy('boxes', 'delete')).toEqual(
        expect.arrayContaining(['boxes', 'box_versions', 'box_providers']),
      );
      expect(clock.affectedBy('boxes', 'update')).toEqual(['boxes']);
      // The agent-count triggers' PL/pgSQL bodies: a status change moves the pools on, a report does not.
      expect(clock.affectedBy('agents', 'update', ['status', 'last_ping_at'])).toContain('agent_pools');
      expect(clock.affectedBy('agents', 'update', ['last_ping_at', 'ip_address'])).toEqual(['agents']);
      expect(clock.affectedBy('api_tokens', 'delete')).toContain('upload_sessions');
      expect(() => new ReadCache(clock, ['rate_limits'], async () => 1)).toThrow(/not tables/);
      const { rows } = await admin.query<{
        relname: string;
        notified: boolean;
      }>(`SELECT c.relname, EXISTS (SELECT 1 FROM pg_trigger g WHERE g.tgrelid = c.oid AND g.tgname = 'boxyard_tables_notify') AS notified
        FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'r'`);
      expect(rows.length).toBeGreaterThan(20);
      for (const r of rows)
        expect({ table: r.relname, notified: r.notified }).toEqual({
          table: r.relname,
          notified: !UNNOTIFIED.includes(r.relname),
        });
    } finally {
      await store.close();
    }
  });
});
