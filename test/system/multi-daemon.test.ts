import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnDaemon, type SpawnedDaemon } from '../helpers/spawn-daemon';
import { ensureDatabase, startTestPostgres, type TestPostgres } from '../helpers/postgres';
import { ADMIN } from '../helpers/daemon';
import { HttpClient } from '../helpers/http';
import { createAgentToken, createOrg, createPool, JSONAPI } from '../helpers/agents';
import { startS3Server, type TestS3 } from '../helpers/s3-server';
import { rawGet, rawPut } from '../helpers/upload';
import { runCli } from '../helpers/cli';
import { serveJson, staticServer, tricklingFile } from '../helpers/mirror';
import { createHash, randomBytes } from 'node:crypto';

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
/** The same path on another daemon: an upload URL one daemon made, sent to the other. */
const on = (d: SpawnedDaemon, url: string) => `${d.url}${new URL(url).pathname}`;

/**
 * Several daemons on one PostgreSQL database and one bucket behind a load balancer:
 * any daemon answers any request; one leads — runs the agent watchdog, garbage collection and
 * scheduled mirrors — and another takes over when it dies. Each daemon has a data folder of its
 * own holding the same secret.key, as deployments mount it.
 */
describe('two daemons on one PostgreSQL database and one bucket', () => {
  let cluster: TestPostgres;
  let s3: TestS3;
  const dirs: string[] = [];
  const daemons: SpawnedDaemon[] = [];
  let env: Record<string, string>;

  const start = async (keyFrom?: string) => {
    const dir = mkdtempSync(join(tmpdir(), 'boxyard-multi-'));
    dirs.push(dir);
    if (keyFrom) copyFileSync(join(keyFrom, 'secret.key'), join(dir, 'secret.key'));
    const d = await spawnDaemon({ dataDir: dir, env });
    daemons.push(d);
    return { d, dir };
  };

  const readyz = async (d: SpawnedDaemon) => {
    const r = await fetch(`${d.url}/readyz`);
    return { status: r.status, body: (await r.json()) as { status: string; leader: boolean } };
  };

  /** Asks until `check` holds, at most `tries` times a quarter second apart. */
  const eventually = async <T>(what: () => Promise<T>, check: (v: T) => boolean, tries = 120): Promise<T> => {
    let v = await what();
    for (let i = 0; i < tries && !check(v); i++) {
      await new Promise((r) => setTimeout(r, 250));
      v = await what();
    }
    return v;
  };

  beforeAll(async () => {
    cluster = await startTestPostgres();
    s3 = await startS3Server({ engine: 's3rver' });
    await ensureDatabase(cluster.url('postgres'), 'multi');
    // Agents report every 2 s, and are unknown after 3 s of silence: a takeover is seen in seconds.
    env = {
      BOXYARD_DATABASE_URL: cluster.url('multi'),
      BOXYARD_BLOBS: s3.url('multi/'),
      ...s3.env,
      BOXYARD_AGENT_PING: '2',
      BOXYARD_AGENT_UNKNOWN_AFTER: '3',
    };
  }, 120_000);

  afterAll(async () => {
    for (const d of daemons) await d.kill('SIGKILL');
    await s3?.close();
    await cluster?.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  const signIn = async (d: SpawnedDaemon) => {
    const r = await new HttpClient(d.url).post('/api/v1/authenticate', {
      user: { login: ADMIN.username, password: ADMIN.password },
    });
    expect(r.status, r.text).toBe(200);
    return (r.json as { token: string }).token;
  };

  it('uploads through one daemon, publishes and downloads through the other; 20 uploads spread over both end consistent', async () => {
    const a = await start();
    const b = await start(a.dir);
    const token = await signIn(a.d);
    const viaA = new HttpClient(a.d.url, token);
    const viaB = new HttpClient(b.d.url, token);
    expect(
      (await viaA.post('/api/v1/boxes', { box: { username: 'admin', name: 'shared', is_private: false } })).status,
    ).toBe(200);
    expect((await viaA.post('/api/v1/box/admin/shared/versions', { version: { version: '1.0.0' } })).status).toBe(200);
    expect(
      (await viaA.post('/api/v1/box/admin/shared/version/1.0.0/providers', { provider: { name: 'virtualbox' } }))
        .status,
    ).toBe(200);
    const url = (await viaA.get('/api/v1/box/admin/shared/version/1.0.0/provider/virtualbox/upload')).json
      .upload_path as string;
    const file = randomBytes(3 * 1024 * 1024 + 17);
    expect((await rawPut(on(b.d, url), file)).status).toBe(200);
    expect((await viaB.put('/api/v1/box/admin/shared/version/1.0.0/release')).status).toBe(200);
    const provider = await viaA.get('/api/v1/box/admin/shared/version/1.0.0/provider/virtualbox');
    expect(provider.json).toMatchObject({ checksum: sha256(file), checksum_type: 'sha256' });
    for (const d of [a.d, b.d]) {
      const got = await rawGet(on(d, provider.json.download_url as string));
      expect(got.status).toBe(200);
      expect(sha256(got.body)).toBe(sha256(file));
    }

    // 20 uploads at once, every other one through each daemon.
    expect((await viaB.post('/api/v1/box/admin/shared/versions', { version: { version: '2.0.0' } })).status).toBe(200);
    const files = Array.from({ length: 20 }, (_, i) => randomBytes(256 * 1024 + i));
    const urls: string[] = [];
    for (let i = 0; i < files.length; i++) {
      const api = i % 2 ? viaA : viaB;
      expect(
        (await api.post('/api/v1/box/admin/shared/version/2.0.0/providers', { provider: { name: `p${i}` } })).status,
      ).toBe(200);
      urls.push(
        (await api.get(`/api/v1/box/admin/shared/version/2.0.0/provider/p${i}/upload`)).json.upload_path as string,
      );
    }
    const puts = await Promise.all(files.map((f, i) => rawPut(on(i % 2 ? b.d : a.d, urls[i]), f)));
    expect(puts.map((r) => r.status)).toEqual(files.map(() => 200));
    const version = await viaB.get('/api/v1/box/admin/shared/version/2.0.0');
    const byName = new Map(
      (version.json.providers as Array<{ name: string; checksum: string; size: number }>).map((p) => [p.name, p]),
    );
    expect(files.map((_, i) => byName.get(`p${i}`))).toEqual(
      files.map((f) => expect.objectContaining({ checksum: sha256(f) })),
    );
    const client = s3.client();
    try {
      const { ListObjectsV2Command } = await import('@aws-sdk/client-s3');
      const listed = await client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: 'multi/' }));
      const keys = (listed.Contents ?? []).map((o) => {
        assert(o.Key, 'the bucket listed an object without a key');
        return o.Key;
      });
      // Every file stored once, under its sha256, and nothing left staged.
      expect(keys.filter((k) => k.startsWith('multi/blobs/')).sort()).toEqual(
        [file, ...files].map((f) => `multi/blobs/sha256/${sha256(f).slice(0, 2)}/${sha256(f)}`).sort(),
      );
      expect(keys.filter((k) => !k.startsWith('multi/blobs/'))).toEqual([]);
    } finally {
      client.destroy();
    }
    await a.d.kill('SIGKILL');
    await b.d.kill('SIGKILL');
  });

  it('leads with exactly one daemon, and hands the lead over when that one is killed', async () => {
    const a = await start();
    const b = await start(a.dir);
    expect(await readyz(a.d)).toEqual({
      status: 200,
      body: expect.objectContaining({ status: 'ready', leader: true }),
    });
    expect(await readyz(b.d)).toEqual({
      status: 200,
      body: expect.objectContaining({ status: 'ready', leader: false }),
    });

    // An agent registered through A, reporting to nobody: only the leader's watchdog marks it unknown.
    const admin = new HttpClient(a.d.url);
    const login = await admin.post('/api/v1/authenticate', {
      user: { login: ADMIN.username, password: ADMIN.password },
    });
    expect(login.status).toBe(200);
    const api = admin.withToken((login.json as { token: string }).token).withContentType(JSONAPI);
    await createOrg(api, 'lab');
    const pool = await createPool(api, 'lab', 'pool');
    const token = await createAgentToken(api, pool.id);
    const reg = await new HttpClient(a.d.url).withToken(token.token).post('/api/agent/register', { name: 'silent' });
    expect(reg.status).toBe(201);

    await a.d.kill('SIGKILL');
    const took = await eventually(
      () => readyz(b.d),
      (r) => r.body.leader,
    );
    expect(took.body.leader).toBe(true);

    // B's watchdog now turns the silent agent unknown; B answers everything A's token made.
    const viaB = new HttpClient(b.d.url).withToken((login.json as { token: string }).token).withContentType(JSONAPI);
    const agent = await eventually(
      () => viaB.get(`/api/v2/agents/${(reg.json as { agent: { id: string } }).agent.id}`),
      (r) => (r.json as { data?: { attributes: { status: string } } }).data?.attributes.status === 'unknown',
    );
    expect(agent.status).toBe(200);
    expect((agent.json as { data: { attributes: { status: string } } }).data.attributes.status).toBe('unknown');
  });

  it('a mirror job cancelled through the daemon that does not lead stops downloading in the one that does', async () => {
    const upstream = await staticServer();
    try {
      const file = tricklingFile();
      upstream.route('/files/slow.box', file.handler);
      upstream.route(
        '/acme/slow',
        serveJson({
          name: 'acme/slow',
          versions: [{ version: '1.0.0', providers: [{ name: 'virtualbox', url: '/files/slow.box' }] }],
        }),
      );
      // The daemons of the tests above are gone: A takes the lead (once PostgreSQL has seen the last leader go).
      for (const d of daemons) await d.kill('SIGKILL');
      const a = await start();
      const b = await start(a.dir);
      expect(
        (
          await eventually(
            () => readyz(a.d),
            (r) => r.body.leader,
          )
        ).body.leader,
      ).toBe(true);
      const token = await signIn(b.d);
      const viaB = new HttpClient(b.d.url, token);
      const r = await viaB.post('/api/boxyard/mirrors', {
        mirror: { upstream: { url: upstream.url }, source: 'acme/slow', target: 'admin/slow' },
      });
      expect(r.status, r.text).toBe(201);
      await eventually(
        async () => upstream.requests,
        (seen) => seen.includes('GET /files/slow.box'),
      );
      expect(upstream.requests).toContain('GET /files/slow.box');
      const c = await viaB.post(`/api/boxyard/mirror-jobs/${r.json.job.id as string}/cancel`);
      expect(c.status, c.text).toBe(200);
      expect(c.json.job).toMatchObject({ state: 'cancelled' });
      expect(
        await eventually(
          async () => file.closed(),
          (n) => n > 0,
        ),
      ).toBe(1);
      expect(
        (await new HttpClient(a.d.url, token).get(`/api/boxyard/mirror-jobs/${r.json.job.id as string}`)).json.job,
      ).toMatchObject({ state: 'cancelled' });
      await a.d.kill('SIGKILL');
      await b.d.kill('SIGKILL');
    } finally {
      await upstream.close();
    }
  });

  it('refuses backup, restore and check of state kept in PostgreSQL and a bucket, saying what to use', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'boxyard-multi-'));
    dirs.push(dir);
    for (const args of [['backup', join(dir, 'copy')], ['check'], ['restore', join(dir, 'copy')]]) {
      const r = await runCli([...args, '--data', dir], env);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain('PostgreSQL (BOXYARD_DATABASE_URL) and an S3 bucket (BOXYARD_BLOBS)');
      expect(r.stderr).toContain('pg_dump');
    }
  });
});
