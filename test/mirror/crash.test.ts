import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startTestDaemon } from '../helpers/daemon';
import { HttpClient } from '../helpers/http';
import { serveFile, serveJson, sha256, staticServer, waitForJob, type StaticServer } from '../helpers/mirror';
import { spawnDaemon, spawnDaemonOnTinyDisk, type SpawnedDaemon } from '../helpers/spawn-daemon';
import { rawGet } from '../helpers/upload';

const login = async (url: string) => {
  const r = await new HttpClient(url).post('/api/v1/authenticate', {
    user: { login: ADMIN.username, password: ADMIN.password },
  });
  expect(r.status, r.text).toBe(200);
  return new HttpClient(url, r.json.token as string);
};

/** Upstream GETs of one file, with the Range start each asked for and the bytes it was sent. */
interface Fetch {
  range: number;
  sent: number;
}

describe('a mirror daemon killed mid-job', () => {
  let s: StaticServer;
  let data: string;
  let daemon: SpawnedDaemon | undefined;
  const big = randomBytes(24 * 1024 * 1024);
  const small = randomBytes(30_000);
  const fetches: Fetch[] = [];

  beforeAll(async () => {
    s = await staticServer();
    data = mkdtempSync(join(tmpdir(), 'boxyard-crash-'));
    s.route(
      '/acme/big',
      serveJson({
        name: 'acme/big',
        versions: [
          {
            version: '2.0.0',
            providers: [
              {
                name: 'virtualbox',
                url: `${s.url}/big.box`,
                checksum: sha256(big),
                checksum_type: 'sha256',
                architecture: 'amd64',
              },
            ],
          },
          {
            version: '1.0.0',
            providers: [
              {
                name: 'virtualbox',
                url: `${s.url}/small.box`,
                checksum: sha256(small),
                checksum_type: 'sha256',
                architecture: 'amd64',
              },
            ],
          },
        ],
      }),
    );
    s.route('/small.box', serveFile(small));
    // Slow enough (about 8 MiB/s) to be killed halfway through.
    s.route('/big.box', (req, res) => {
      const start = Number(/^bytes=(\d+)-$/.exec(req.headers.range ?? '')?.[1] ?? 0);
      res.statusCode = start ? 206 : 200;
      res.setHeader('content-length', String(big.length - start));
      if (start) res.setHeader('content-range', `bytes ${start}-${big.length - 1}/${big.length}`);
      if (req.method === 'HEAD') return res.end();
      const f: Fetch = { range: start, sent: 0 };
      fetches.push(f);
      let at = start;
      const timer = setInterval(() => {
        if (res.destroyed) return clearInterval(timer);
        const end = Math.min(at + 64 * 1024, big.length);
        res.write(big.subarray(at, end));
        f.sent += end - at;
        at = end;
        if (at >= big.length) {
          clearInterval(timer);
          res.end();
        }
      }, 8);
      res.on('close', () => clearInterval(timer));
    });
  });
  afterAll(async () => {
    await daemon?.kill('SIGKILL');
    await s?.close();
    rmSync(data, { recursive: true, force: true });
  });

  it('resumes after SIGKILL without fetching finished bytes again', async () => {
    daemon = await spawnDaemon({ dataDir: data });
    let http = await login(daemon.url);
    const created = await http.post('/api/boxyard/mirrors', {
      mirror: { upstream: { url: s.url }, source: 'acme/big' },
    });
    expect(created.status, created.text).toBe(201);
    const jobId = created.json.job.id as string;
    let before = 0;
    for (const until = Date.now() + 30_000; before < 6 * 1024 * 1024; ) {
      if (Date.now() > until) throw new Error('the job did not progress');
      before = (await http.get(`/api/boxyard/mirror-jobs/${jobId}`)).json.job.bytes_done;
      await new Promise((r) => setTimeout(r, 50));
    }
    await daemon.kill('SIGKILL');

    daemon = await spawnDaemon({ dataDir: data, port: daemon.port });
    http = await login(daemon.url);
    const job = await waitForJob(http, jobId);
    expect(job.state, job.message ?? '').toBe('done');
    expect(job.published).toEqual([{ box: 'acme/big', versions: ['2.0.0', '1.0.0'] }]);
    expect(job).toMatchObject({
      files_done: 2,
      files_total: 2,
      bytes_done: big.length + small.length,
      bytes_total: big.length + small.length,
    });
    // The second fetch asked only for what was missing: at least every byte the job had reported.
    expect(fetches).toHaveLength(2);
    expect(fetches[1].range).toBeGreaterThanOrEqual(before);
    expect(fetches[1].range + fetches[1].sent).toBe(big.length);
    expect(s.requests.filter((r) => r === 'GET /small.box')).toHaveLength(1);
    const doc = (await http.get('/acme/big')).json;
    expect(doc.versions[0].providers[0]).toMatchObject({ checksum: sha256(big), checksum_type: 'sha256' });
    const dl = await rawGet(doc.versions[0].providers[0].url);
    expect(sha256(dl.body)).toBe(sha256(big));
  });
});

describe('a connection that breaks mid-file', () => {
  it('is resumed with Range within the job, fetching only the missing bytes', async () => {
    const s = await staticServer();
    const d = await startTestDaemon();
    const file = randomBytes(3 * 1024 * 1024);
    const ranges: string[] = [];
    s.route(
      '/acme/flaky',
      serveJson({
        name: 'acme/flaky',
        versions: [
          {
            version: '1.0.0',
            providers: [
              { name: 'virtualbox', url: `${s.url}/flaky.box`, checksum: sha256(file), checksum_type: 'sha256' },
            ],
          },
        ],
      }),
    );
    s.route('/flaky.box', (req, res) => {
      if (req.method === 'HEAD') return serveFile(file)(req, res);
      ranges.push(req.headers.range ?? 'none');
      if (ranges.length > 1) return serveFile(file)(req, res);
      res.setHeader('content-length', String(file.length));
      res.write(file.subarray(0, 1024 * 1024), () => setTimeout(() => res.socket?.destroy(), 50));
    });
    try {
      const http = d.http.withToken(d.adminToken);
      const r = await http.post('/api/boxyard/mirrors', { mirror: { upstream: { url: s.url }, source: 'acme/flaky' } });
      const job = await waitForJob(http, r.json.job.id);
      expect(job.state, job.message ?? '').toBe('done');
      expect(ranges[0]).toBe('none');
      expect(ranges).toHaveLength(2);
      const resumedAt = Number(/^bytes=(\d+)-$/.exec(ranges[1])?.[1]);
      expect(resumedAt).toBeGreaterThan(0);
      expect(resumedAt).toBeLessThanOrEqual(1024 * 1024);
      expect(job).toMatchObject({ bytes_done: file.length, bytes_total: file.length });
      expect((await d.http.get('/acme/flaky')).json.versions[0].providers[0].checksum).toBe(sha256(file));
    } finally {
      await d.stop();
      await s.close();
    }
  });
});

describe('a mirror onto a full disk', () => {
  it('fails the job saying the disk is full and publishes nothing', async () => {
    const s = await staticServer();
    const file = randomBytes(6 * 1024 * 1024);
    s.route(
      '/acme/huge',
      serveJson({
        name: 'acme/huge',
        versions: [{ version: '1.0.0', providers: [{ name: 'virtualbox', url: `${s.url}/huge.box` }] }],
      }),
    );
    s.route('/huge.box', serveFile(file));
    // The data folder is a 4 MiB tmpfs of its own: the disk fills up for real.
    const d = await spawnDaemonOnTinyDisk('boxyard-full-');
    const data = d.dataDir;
    try {
      const http = await login(d.url);
      await http.post('/api/boxyard/organizations', { organization: { name: 'acme' } });
      const plan = await http.post('/api/boxyard/mirror-plans', {
        mirror: { upstream: { url: s.url }, source: 'acme/huge' },
      });
      expect(plan.json.plan.storage).toMatchObject({ needed_bytes: file.length, fits: false });
      expect(plan.json.plan.storage.free_bytes).toBeLessThan(file.length);
      const m = await http.post('/api/boxyard/mirrors', { mirror: { upstream: { url: s.url }, source: 'acme/huge' } });
      expect(m.status, m.text).toBe(201);
      const job = await waitForJob(http, m.json.job.id);
      // Its size is known ahead (HEAD): the plan does not fit, and the job fails before fetching anything, giving both
      // sizes.
      expect(job).toMatchObject({ state: 'failed', error_code: 'insufficient_storage', files_done: 0, bytes_done: 0 });
      expect(job.message).toMatch(
        /needs 6\.0 MiB, and the disk holding Boxyard's data folder has [\d.]+ (KiB|MiB) free/,
      );
      // A file whose size is not told ahead fills the disk as it streams in.
      s.route(
        '/acme/unsized',
        serveJson({
          name: 'acme/unsized',
          versions: [{ version: '1.0.0', providers: [{ name: 'virtualbox', url: `${s.url}/unsized.box` }] }],
        }),
      );
      s.route('/unsized.box', (req, res) => {
        if (req.method === 'HEAD') {
          res.statusCode = 405;
          res.end();
        } else res.end(file);
      });
      const streamed = await waitForJob(
        http,
        (await http.post('/api/boxyard/mirrors', { mirror: { upstream: { url: s.url }, source: 'acme/unsized' } })).json
          .job.id,
      );
      expect(streamed).toMatchObject({ state: 'failed', error_code: 'insufficient_storage' });
      expect(streamed.message).toMatch(/disk holding Boxyard's data folder is full/);
      expect((await http.get('/api/v1/box/acme/unsized')).status).toBe(404);
      expect((await http.get('/api/v1/box/acme/huge')).status).toBe(404);
      expect((await http.get('/api/v1/user/acme')).json.boxes).toEqual([]);
      // The space is given back: a small mirror still fits.
      s.route(
        '/acme/tiny',
        serveJson({
          name: 'acme/tiny',
          versions: [{ version: '1.0.0', providers: [{ name: 'virtualbox', url: `${s.url}/tiny.box` }] }],
        }),
      );
      s.route('/tiny.box', serveFile(randomBytes(1024 * 1024)));
      const ok = await waitForJob(
        http,
        (await http.post('/api/boxyard/mirrors', { mirror: { upstream: { url: s.url }, source: 'acme/tiny' } })).json
          .job.id,
      );
      expect(ok.state, ok.message ?? '').toBe('done');
    } finally {
      await d.kill('SIGKILL');
      await s.close();
      rmSync(data, { recursive: true, force: true });
    }
  });
});
