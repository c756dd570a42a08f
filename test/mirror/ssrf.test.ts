import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN, startTestDaemon, type TestDaemon } from '../helpers/daemon';
import { HttpClient } from '../helpers/http';
import { spawnDaemon } from '../helpers/spawn-daemon';
import { serveFile, serveJson, staticServer, waitForJob, type StaticServer } from '../helpers/mirror';

/**
 * Server-side request forgery: an upstream made by a non-administrator reaches only
 * public addresses and those an administrator allows (`mirror_allowed_hosts`), checked for every
 * address a name resolves to and every redirect hop, before anything is asked. Only loopback
 * addresses are used here: each refusal is checked to have sent nothing.
 */
describe('upstream addresses of non-administrators', () => {
  let d: TestDaemon;
  let s: StaticServer;
  let admin: HttpClient;
  let alice: HttpClient;
  /** A second "host" on 127.0.0.2, which the allowed list never names. */
  let other: Server;
  let otherUrl: string;
  let otherHits = 0;
  const port = () => new URL(s.url).port;
  const allow = async (hosts: string[]) => {
    const r = await admin.put('/api/boxyard/settings', { settings: { mirror_allowed_hosts: hosts } });
    expect(r.status, r.text).toBe(200);
    expect(r.json.settings.mirror_allowed_hosts).toEqual(hosts);
  };

  beforeAll(async () => {
    s = await staticServer();
    s.route(
      '/acme/box',
      serveJson({
        name: 'acme/box',
        versions: [{ version: '1.0.0', providers: [{ name: 'virtualbox', url: '/files/1.box' }] }],
      }),
    );
    s.route('/files/1.box', serveFile(Buffer.from('box one')));
    s.route('/api/v1/search', serveJson({ boxes: [] }));
    other = createServer((_req, res) => {
      otherHits++;
      res.end('{}');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.2', () => resolve()));
    otherUrl = `http://127.0.0.2:${(other.address() as AddressInfo).port}`;
    s.route('/acme/moved', (_req, res) => {
      res.statusCode = 302;
      res.setHeader('location', `${otherUrl}/acme/moved`);
      res.end();
    });
    d = await startTestDaemon();
    admin = d.http.withToken(d.adminToken);
    alice = (await d.user('alice', { orgs: ['labs'] })).http;
  });
  afterAll(async () => {
    await d?.stop();
    await s?.close();
    await new Promise((resolve) => other?.close(resolve));
  });

  it('refuses loopback, link-local, private and unspecified addresses with 422 address_not_allowed, asking nothing', async () => {
    const closed = `http://127.0.0.1:1`;
    const urls = [
      s.url,
      closed,
      `http://localhost:${port()}`,
      `http://[::1]:${port()}`,
      `http://[::ffff:127.0.0.1]:${port()}`,
      'http://169.254.169.254/latest/meta-data',
      'http://10.1.2.3',
      'http://192.168.1.20:4780',
      'http://0.0.0.0',
      'http://[fd00::1]',
      'http://2130706433', // 127.0.0.1 as one number: the URL parser reads it as an address
    ];
    const messages = new Map<string, string>();
    for (const url of urls) {
      const r = await alice.post('/api/boxyard/upstreams', { upstream: { url } });
      expect(r.status, `${url}: ${r.text}`).toBe(422);
      expect(r.json, url).toMatchObject({
        success: false,
        code: 'address_not_allowed',
        errors: [expect.stringMatching(/not a public address.*mirror_allowed_hosts/)],
      });
      messages.set(url, r.json.errors[0]);
    }
    // Whether something listens there or not, the answer is the same but for the address.
    const listening = messages.get(s.url);
    const unheard = messages.get(closed);
    assert(listening && unheard, 'both addresses were refused with a message');
    expect(listening.replace(port(), 'PORT')).toBe(unheard.replace(':1 ', ':PORT '));
    // Inline upstreams of a mirror too, and a changed address; nothing was made.
    const m = await alice.post('/api/boxyard/mirrors', {
      mirror: { upstream: { url: s.url }, source: 'acme/box', target: 'labs/box' },
    });
    expect(m.status, m.text).toBe(422);
    expect(m.json.code).toBe('address_not_allowed');
    expect((await alice.get('/api/boxyard/upstreams')).json.upstreams).toEqual([]);
    expect((await alice.get('/api/boxyard/mirrors')).json.mirrors).toEqual([]);
    expect(s.requests).toEqual([]);
    expect(otherHits).toBe(0);
  });

  it('administrators are not limited; the allowed list opens an address, a network or a name to everyone', async () => {
    const own = await admin.post('/api/boxyard/upstreams', { upstream: { name: 'admins', url: s.url } });
    expect(own.status, own.text).toBe(201);
    const bad = await admin.put('/api/boxyard/settings', { settings: { mirror_allowed_hosts: ['not a host!'] } });
    expect(bad.status).toBe(403);
    expect(bad.json.code).toBe('validation');
    expect(
      (await alice.put('/api/boxyard/settings', { settings: { mirror_allowed_hosts: ['0.0.0.0/0'] } })).status,
    ).toBe(403);
    for (const entry of ['127.0.0.1', '127.0.0.0/30', 'localhost']) {
      await allow([entry]);
      const host = entry === 'localhost' ? `http://localhost:${port()}` : s.url;
      const r = await alice.post('/api/boxyard/upstreams', {
        upstream: { name: `via-${entry.replace(/[/.]/g, '-')}`, url: host },
      });
      expect(r.status, `${entry}: ${r.text}`).toBe(201);
    }
    await allow(['127.0.0.1']);
    const { job } = await (async () => {
      const r = await alice.post('/api/boxyard/mirrors', {
        mirror: { upstream: { url: s.url }, source: 'acme/box', target: 'labs/box' },
      });
      expect(r.status, r.text).toBe(201);
      return { job: await waitForJob(alice, r.json.job.id) };
    })();
    expect(job).toMatchObject({ state: 'done', published: [{ box: 'labs/box', versions: ['1.0.0'] }] });
  });

  it('checks every redirect hop: an allowed host sending the daemon to another address fails the job, which asks nothing there', async () => {
    await allow(['127.0.0.1']);
    const r = await alice.post('/api/boxyard/mirrors', {
      mirror: { upstream: { url: s.url }, source: 'acme/moved', target: 'labs/moved' },
    });
    expect(r.status, r.text).toBe(201);
    const job = await waitForJob(alice, r.json.job.id);
    expect(job).toMatchObject({
      state: 'failed',
      error_code: 'address_not_allowed',
      message: expect.stringContaining('127.0.0.2'),
    });
    expect(otherHits).toBe(0);
    // The refusal is not the upstream's failure: its breaker did not count it.
    const ups = (await alice.get('/api/boxyard/upstreams')).json.upstreams.find(
      (u: { url: string }) => u.url === s.url,
    );
    expect(ups).toMatchObject({ failures: 0 });
  });

  it('an address allowed when the upstream was made, and no longer: the test and the jobs are refused, asking nothing', async () => {
    await allow(['127.0.0.1']);
    const made = await alice.post('/api/boxyard/upstreams', { upstream: { name: 'later-refused', url: `${s.url}/` } });
    expect(made.status, made.text).toBe(201);
    await allow([]);
    const before = s.requests.length;
    const t = await alice.post(`/api/boxyard/upstreams/${made.json.upstream.id}/test`, {});
    expect(t.status).toBe(200);
    expect(t.json.test).toMatchObject({ ok: false, code: 'address_not_allowed' });
    const m = await alice.post('/api/boxyard/mirrors', {
      mirror: { upstream_id: made.json.upstream.id, source: 'acme/box', target: 'labs/again' },
    });
    expect(m.status, m.text).toBe(201);
    expect(await waitForJob(alice, m.json.job.id)).toMatchObject({
      state: 'failed',
      error_code: 'address_not_allowed',
    });
    expect(s.requests.length).toBe(before);
    // An administrator editing it by id does so on purpose, and it stays alice's, with alice's limits.
    const edited = await admin.patch(`/api/boxyard/upstreams/${made.json.upstream.id}`, { upstream: { url: s.url } });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.json.upstream).toMatchObject({ owner: 'alice', url: s.url });
    expect((await alice.post(`/api/boxyard/upstreams/${made.json.upstream.id}/test`, {})).json.test).toMatchObject({
      ok: false,
      code: 'address_not_allowed',
    });
    expect(s.requests.length).toBe(before);
  });

  it("the bundled daemon, as users start it, connects a non-administrator's upstream through the checked lookup", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'boxyard-ssrf-'));
    const spawned = await spawnDaemon({ dataDir });
    try {
      const login = async (user: string, password: string) => {
        const r = await new HttpClient(spawned.url).post('/api/v1/authenticate', { user: { login: user, password } });
        expect(r.status, r.text).toBe(200);
        return new HttpClient(spawned.url, r.json.token as string);
      };
      const root = await login(ADMIN.username, ADMIN.password);
      expect(
        (await root.put('/api/boxyard/settings', { settings: { mirror_allowed_hosts: ['127.0.0.1'] } })).status,
      ).toBe(200);
      expect(
        (await root.post('/api/boxyard/users', { user: { username: 'carol', password: 'carol-password-1' } })).status,
      ).toBe(201);
      const carol = await login('carol', 'carol-password-1');
      const r = await carol.post('/api/boxyard/mirrors', {
        mirror: { upstream: { url: s.url }, source: 'acme/box', target: 'carol/box' },
      });
      expect(r.status, r.text).toBe(201);
      expect(await waitForJob(carol, r.json.job.id)).toMatchObject({
        state: 'done',
        published: [{ box: 'carol/box', versions: ['1.0.0'] }],
      });
    } finally {
      await spawned.kill();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
