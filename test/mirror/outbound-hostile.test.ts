import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient } from '../helpers/http';
import { serveFile, serveJson, sha256, staticServer, waitForJob, type StaticServer } from '../helpers/mirror';
import { rawGet } from '../helpers/upload';

/**
 * Hostile catalogs and borrowed upstreams. An administrator's upstream (here the pull-through
 * upstream on 127.0.0.1, and an administrator's mirror of it) may be reached at its own origin:
 * the administrator chose it. What its catalogs name is someone else's word: a file on loopback
 * (127.0.0.3 stands in for a service inside the lab), or on an allowed host (127.0.0.2, in
 * `mirror_allowed_hosts`) that redirects there. The internal service must count zero requests.
 */
describe('the outbound policy: hostile catalogs and upstreams that belong to someone else', () => {
  let internal: StaticServer;
  let lan: StaticServer;
  let upstream: StaticServer;
  let d: TestDaemon;
  let admin: HttpClient;
  let alice: HttpClient;
  let bob: HttpClient;
  const good = randomBytes(4096);
  const own = randomBytes(2048);
  const lanAuthorizations: Array<string | undefined> = [];

  const catalog = (name: string, url: string, file?: Buffer) =>
    serveJson({
      name,
      versions: [
        {
          version: '1.0.0',
          providers: [
            { name: 'virtualbox', url, ...(file ? { checksum: sha256(file), checksum_type: 'sha256' } : {}) },
          ],
        },
      ],
    });
  const download = (tag: string) =>
    `${d.url}/${tag.replace('/', '/boxes/')}/versions/1.0.0/providers/virtualbox/unknown/vagrant.box`;

  beforeAll(async () => {
    internal = await staticServer('127.0.0.3');
    internal.route('/secret', serveJson({ secret: 'TOP SECRET' }));
    lan = await staticServer('127.0.0.2');
    lan.route('/redirect.box', (_req, res) => {
      res.statusCode = 302;
      res.setHeader('location', `${internal.url}/secret`);
      res.end();
    });
    lan.route('/ok.box', serveFile(good));
    lan.route('/api/v1/search', (req, res) => {
      lanAuthorizations.push(req.headers.authorization);
      serveJson({ boxes: [] })(req, res);
    });
    upstream = await staticServer('127.0.0.1');
    upstream.route('/evil/direct', catalog('evil/direct', `${internal.url}/secret`));
    upstream.route('/evil/hop', catalog('evil/hop', `${lan.url}/redirect.box`));
    upstream.route('/evil/good', catalog('evil/good', `${lan.url}/ok.box`, good));
    upstream.route('/evil/own', catalog('evil/own', '/files/own.box', own));
    upstream.route('/files/own.box', serveFile(own));
    d = await startTestDaemon({ config: { upstream: upstream.url } });
    admin = d.http.withToken(d.adminToken);
    alice = (await d.user('alice', { orgs: ['alice-lab'] })).http;
    bob = (await d.user('bob')).http;
    const r = await admin.put('/api/boxyard/settings', { settings: { mirror_allowed_hosts: ['127.0.0.2'] } });
    expect(r.status, r.text).toBe(200);
  });
  afterAll(async () => {
    await d?.stop();
    for (const s of [internal, lan, upstream]) await s?.close();
  });

  it('the pull-through cache refuses a file its upstream names on loopback: 502 address_not_allowed, nothing asked, nothing cached', async () => {
    const c = await d.http.get('/evil/direct');
    expect(c.status, c.text).toBe(200);
    for (let i = 0; i < 2; i++) {
      const r = await rawGet(download('evil/direct'));
      expect(r.status, r.text).toBe(502);
      const body = JSON.parse(r.text);
      expect(body).toMatchObject({ success: false, code: 'address_not_allowed' });
      expect(body.errors[0]).toMatch(/127\.0\.0\.3.*not a public address.*mirror_allowed_hosts/);
      expect(r.text).not.toContain('TOP SECRET');
    }
    expect(internal.requests).toEqual([]);
    const cache = await admin.get('/api/boxyard/cache');
    expect(cache.json.boxes.find((b: { tag: string }) => b.tag === 'evil/direct')).toMatchObject({
      providers_cached: 0,
    });
  });

  it('a redirect from an allowed host to loopback is refused at the hop', async () => {
    expect((await d.http.get('/evil/hop')).status).toBe(200);
    const r = await rawGet(download('evil/hop'));
    expect(r.status, r.text).toBe(502);
    expect(JSON.parse(r.text)).toMatchObject({
      code: 'address_not_allowed',
      errors: [expect.stringMatching(/127\.0\.0\.3 is not a public address/)],
    });
    // The hop is named by its host only: a redirect's path and query are not the asker's to see.
    expect(r.text).not.toContain('/secret');
    expect(lan.requests).toContain('GET /redirect.box');
    expect(internal.requests).toEqual([]);
  });

  it("files at the upstream's own origin and on an allowed host are served and cached", async () => {
    for (const [tag, file] of [
      ['evil/own', own],
      ['evil/good', good],
    ] as const) {
      expect((await d.http.get(`/${tag}`)).status).toBe(200);
      const r = await rawGet(download(tag));
      expect(r.status, r.text).toBe(200);
      expect(r.body.equals(file)).toBe(true);
    }
  });

  it("an administrator's mirror of the same upstream fails its job with address_not_allowed and publishes nothing", async () => {
    for (const source of ['evil/direct', 'evil/hop']) {
      const target = `mirrored/${source.split('/')[1]}`;
      const m = await admin.post('/api/boxyard/mirrors', {
        mirror: { upstream: { url: upstream.url }, source, target },
      });
      expect(m.status, m.text).toBe(201);
      const job = await waitForJob(admin, m.json.job.id);
      expect(job).toMatchObject({ state: 'failed', error_code: 'address_not_allowed' });
      expect(job.message).toMatch(/not a public address.*mirror_allowed_hosts/);
      expect((await admin.get(`/api/v1/box/${target}`)).status).toBe(404);
    }
    expect(internal.requests).toEqual([]);
  });

  it("mirror-by-URL never takes over a user's upstream: the administrator gets one of their own, and the user's keeps no token of theirs", async () => {
    const mine = await alice.post('/api/boxyard/upstreams', { upstream: { name: 'lan', url: lan.url } });
    expect(mine.status, mine.text).toBe(201);
    expect(mine.json.upstream).toMatchObject({ owner: 'alice', has_token: false });
    const m = await admin.post('/api/boxyard/mirrors', {
      mirror: { upstream: { url: lan.url, token: 'ADMINS-HCP-TOKEN' }, source: 'x/y', target: 'admins/y', run: false },
    });
    expect(m.status, m.text).toBe(201);
    expect(m.json.mirror.upstream.id).not.toBe(mine.json.upstream.id);
    const after = await alice.get(`/api/boxyard/upstreams/${mine.json.upstream.id}`);
    expect(after.json.upstream).toMatchObject({
      owner: 'alice',
      has_token: false,
      url: lan.url,
      updated_at: mine.json.upstream.updated_at,
    });
    expect((await alice.get('/api/boxyard/upstreams')).json.upstreams).toHaveLength(1);
    // alice's test sends no token of the administrator's.
    const t = await alice.post(`/api/boxyard/upstreams/${mine.json.upstream.id}/test`, {});
    expect(t.json.test, t.text).toMatchObject({ ok: true });
    expect(lanAuthorizations).toEqual([undefined]);
    // alice re-pointing hers moves nothing of the administrator's.
    expect(
      (
        await alice.patch(`/api/boxyard/upstreams/${mine.json.upstream.id}`, {
          upstream: { url: `${lan.url}/elsewhere` },
        })
      ).status,
    ).toBe(200);
    expect((await admin.get(`/api/boxyard/mirrors/${m.json.mirror.id}`)).json.mirror.upstream.url).toBe(lan.url);
    // Nor may a mirror read from alice's by id: it is hers to point elsewhere.
    const borrowed = await admin.post('/api/boxyard/mirrors', {
      mirror: { upstream_id: mine.json.upstream.id, source: 'x/z', target: 'admins/z', run: false },
    });
    expect(borrowed.status, borrowed.text).toBe(403);
    expect(borrowed.json).toMatchObject({ code: 'forbidden', errors: [expect.stringMatching(/belongs to alice/)] });
    const plan = await admin.post('/api/boxyard/mirror-plans', {
      mirror: { upstream_id: mine.json.upstream.id, source: 'x/z' },
    });
    expect(plan.status, plan.text).toBe(403);
  });

  it('upstream names are unique per user: a taken name says nothing of other users', async () => {
    const a = await bob.post('/api/boxyard/upstreams', { upstream: { name: 'lan', url: lan.url } });
    expect(a.status, a.text).toBe(201);
    expect(a.json.upstream).toMatchObject({ name: 'lan', owner: 'bob' });
    const again = await bob.post('/api/boxyard/upstreams', { upstream: { name: 'LAN', url: `${lan.url}/2` } });
    expect(again.status, again.text).toBe(422);
    expect(again.json.code).toBe('conflict');
    expect(again.text).not.toContain('alice');
    // Default names are free per user too.
    const unnamed = await bob.post('/api/boxyard/upstreams', { upstream: { url: `${lan.url}/3` } });
    expect(unnamed.json.upstream.name).toBe(`127.0.0.2:${new URL(lan.url).port}`);
  });

  it('schemes are told apart once parsed, and a refusal never tells what a name resolved to', async () => {
    for (const url of ['FILE:///etc/passwd', 'File:///etc', '/etc']) {
      const r = await alice.post('/api/boxyard/upstreams', { upstream: { url } });
      expect(r.status, `${url}: ${r.text}`).toBe(403);
      expect(r.json.code).toBe('forbidden');
    }
    for (const url of ['gopher://127.0.0.1/', 'ftp://example.com/', 'javascript:alert(1)']) {
      const r = await alice.post('/api/boxyard/upstreams', { upstream: { url } });
      expect(r.status, `${url}: ${r.text}`).toBe(403);
      expect(r.json.code).toBe('validation');
    }
    const port = new URL(upstream.url).port;
    const asked = upstream.requests.length;
    for (const url of [
      `HTTP://127.0.0.1:${port}/`,
      `http://[::127.0.0.1]:${port}/`,
      `http://[::7f00:1]:${port}/`,
      `http://[::ffff:7f00:1]:${port}/`,
      `http://[64:ff9b::7f00:1]:${port}/`,
    ]) {
      const r = await alice.post('/api/boxyard/upstreams', { upstream: { url } });
      expect(r.status, `${url}: ${r.text}`).toBe(422);
      expect(r.json.code).toBe('address_not_allowed');
    }
    const named = await alice.post('/api/boxyard/upstreams', { upstream: { url: `http://localhost:${port}/` } });
    expect(named.status).toBe(422);
    expect(named.json.errors[0]).toMatch(/^localhost is not a public address/);
    expect(named.text).not.toMatch(/127\.0\.0\.1|::1/);
    expect((await alice.get('/api/boxyard/upstreams')).json.upstreams).toHaveLength(1);
    expect(upstream.requests.length).toBe(asked);
  });
});
