import { stagedUploads } from '../helpers/blobs';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient } from '../helpers/http';
import {
  serveFile,
  serveJson,
  sha256,
  staticServer,
  waitForJob,
  type Handler,
  type StaticServer,
} from '../helpers/mirror';
import { snapshot } from '../helpers/registry';
import { freePort } from '../helpers/spawn-daemon';

/*
 * Every bad upstream fails the job with a message that says what went wrong, and leaves the local
 * box exactly as it was: same rows, no staged bytes left behind.
 */
describe('bad upstreams', () => {
  let d: TestDaemon;
  let http: HttpClient;
  let s: StaticServer;
  const good = randomBytes(40_000);
  const catalogOf = (box: string, provider: Record<string, unknown>, version = '1.0.0') => ({
    name: `acme/${box}`,
    versions: [{ version, status: 'active', providers: [{ name: 'virtualbox', ...provider }] }],
  });
  const fileAt = (box: string) => `${s.url}/files/${box}.box`;

  beforeAll(async () => {
    d = await startTestDaemon();
    http = d.http.withToken(d.adminToken);
    s = await staticServer();
    // The local box the mirrors write into already has a version: it must stay as it is.
    await http.post('/api/boxyard/organizations', { organization: { name: 'acme' } });
    await http.post('/api/v1/boxes', { box: { username: 'acme', name: 'local', is_private: false } });
    await http.post('/api/v1/box/acme/local/versions', { version: { version: '0.1.0' } });
  });
  afterAll(async () => {
    await d?.stop();
    await s?.close();
  });

  /** Serves `catalog` at /acme/BOX and mirrors it into acme/local; answers the failed job. */
  async function failingMirror(box: string, catalog: Handler, upstream: Record<string, unknown> = {}) {
    s.route(`/acme/${box}`, catalog);
    const before = await snapshot(d);
    const created = await http.post('/api/boxyard/upstreams', {
      upstream: { name: `up-${box}`, url: s.url, timeout_seconds: 1, ...upstream },
    });
    expect(created.status, created.text).toBe(201);
    const r = await http.post('/api/boxyard/mirrors', {
      mirror: { upstream_id: created.json.upstream.id, source: `acme/${box}`, target: 'acme/local' },
    });
    expect(r.status, r.text).toBe(201);
    const job = await waitForJob(http, r.json.job.id);
    expect(job.state).toBe('failed');
    expect(await snapshot(d)).toEqual(before);
    // The failure is recorded first (a daemon that takes the job over resumes from the staging), then the staging goes.
    await expect
      .poll(async () => (await stagedUploads(d)).filter((f) => f.startsWith('mfile')), { timeout: 10_000 })
      .toEqual([]);
    return job;
  }

  it('invalid JSON', async () => {
    const job = await failingMirror('badjson', serveJson('{"versions": [ nope'));
    expect(job).toMatchObject({ error_code: 'upstream_failed' });
    expect(job.message).toMatch(/invalid JSON/);
  });

  it('a catalog that does not match the schema', async () => {
    expect((await failingMirror('shape', serveJson({ name: 'acme/shape', versions: 'all of them' }))).message).toMatch(
      /does not match the expected shape.*versions/,
    );
  });

  it('names that would leave the box: versions, providers, architectures', async () => {
    expect(
      (await failingMirror('ver', serveJson(catalogOf('ver', { url: fileAt('x') }, '../../1.0')))).message,
    ).toMatch(/not a Ruby Gem version/);
    expect(
      (
        await failingMirror(
          'prov',
          serveJson({
            ...catalogOf('prov', {}),
            versions: [{ version: '1.0.0', providers: [{ name: '../evil', url: fileAt('x') }] }],
          }),
        )
      ).message,
    ).toMatch(/invalid provider/);
    expect(
      (await failingMirror('arch', serveJson(catalogOf('arch', { url: fileAt('x'), architecture: 'z80' })))).message,
    ).toMatch(/unknown architecture "z80"/);
  });

  it('a file url that is not http(s)', async () => {
    expect(
      (await failingMirror('local', serveJson(catalogOf('local', { url: 'file:///etc/passwd' })))).message,
    ).toMatch(/only http and https/);
  });

  it('a wrong checksum', async () => {
    s.route('/files/sum.box', serveFile(good));
    const job = await failingMirror(
      'sum',
      serveJson(
        catalogOf('sum', { url: fileAt('sum'), checksum: sha256(Buffer.from('other')), checksum_type: 'sha256' }),
      ),
    );
    expect(job.message).toMatch(/Checksum mismatch/);
  });

  it('a truncated file', async () => {
    s.route('/files/short.box', (req, res) => {
      res.setHeader('content-length', String(good.length));
      if (req.method === 'HEAD') return res.end();
      res.write(good.subarray(0, 1000), () => res.socket?.destroy());
    });
    expect((await failingMirror('short', serveJson(catalogOf('short', { url: fileAt('short') })))).message).toMatch(
      /broke off|truncated/,
    );
  });

  it('a redirect loop', async () => {
    s.route('/files/loop.box', (_req, res) => {
      res.statusCode = 302;
      res.setHeader('location', '/files/loop2.box');
      res.end();
    });
    s.route('/files/loop2.box', (_req, res) => {
      res.statusCode = 302;
      res.setHeader('location', '/files/loop.box');
      res.end();
    });
    expect((await failingMirror('loop', serveJson(catalogOf('loop', { url: fileAt('loop') })))).message).toMatch(
      /redirects in a loop/,
    );
  });

  it.each([401, 403, 404, 500, 503])('the upstream answers %i', async (status) => {
    const job = await failingMirror(`status${status}`, (_req, res) => {
      res.statusCode = status;
      res.end('{}');
    });
    expect(job.message).toMatch(status === 404 ? /has no box acme\/status404/ : new RegExp(`answered ${status}`));
    if (status === 401 || status === 403) expect(job.message).toMatch(/token/);
    // The upstream's health says why its last job failed, whether or not its breaker counted it.
    const upstreams = (await http.get('/api/boxyard/upstreams')).json.upstreams as Array<Record<string, unknown>>;
    expect(upstreams.find((u) => u.name === `up-status${status}`)).toMatchObject({ last_error: job.message });
  });

  it('a slow host (no answer within the timeout) and a stalled download', async () => {
    expect(
      (
        await failingMirror('slow', () => {
          /* never answers */
        })
      ).message,
    ).toMatch(/did not answer within 1 s/);
    s.route('/files/stall.box', (req, res) => {
      res.setHeader('content-length', String(good.length));
      if (req.method === 'HEAD') res.end();
      else res.write(good.subarray(0, 10));
    });
    expect((await failingMirror('stall', serveJson(catalogOf('stall', { url: fileAt('stall') })))).message).toMatch(
      /sent nothing for 1 s/,
    );
  });

  it('a dead host, then the circuit breaker stops asking it', async () => {
    const dead = `http://127.0.0.1:${await freePort()}`;
    const up = await http.post('/api/boxyard/upstreams', {
      upstream: { name: 'dead', url: dead, max_failures: 1, pause_minutes: 5 },
    });
    const m = await http.post('/api/boxyard/mirrors', {
      mirror: { upstream_id: up.json.upstream.id, source: 'acme/x', target: 'acme/local' },
    });
    const first = await waitForJob(http, m.json.job.id);
    expect(first.message).toMatch(/Cannot reach upstream "dead": nothing answers at 127\.0\.0\.1:\d+ /);
    const after = (await http.get(`/api/boxyard/upstreams/${up.json.upstream.id}`)).json.upstream;
    expect(after).toMatchObject({ failures: 1, last_error: first.message });
    expect(after.paused_until).not.toBeNull();
    const second = await waitForJob(
      http,
      (await http.post(`/api/boxyard/mirrors/${m.json.mirror.id}/run`)).json.job.id,
    );
    expect(second.message).toMatch(/paused until/);
  });

  it('an upstream token is sent as vagrant sends it and never shown again', async () => {
    let seen: string | undefined;
    s.route('/acme/tok', (req, res) => {
      seen = req.headers.authorization;
      res.statusCode = 401;
      res.end();
    });
    const job = await failingMirror(
      'tok',
      (req, res) => {
        seen = req.headers.authorization;
        res.statusCode = 401;
        res.end();
      },
      { token: 'vc-token;hcp-token' },
    );
    expect(job.message).toMatch(/401/);
    expect(seen).toBe('Bearer vc-token;hcp-token');
    const list = await http.get('/api/boxyard/upstreams');
    expect(list.text).not.toContain('vc-token');
    expect(list.json.upstreams.find((u: { name: string }) => u.name === 'up-tok')).toMatchObject({ has_token: true });
  });
});
