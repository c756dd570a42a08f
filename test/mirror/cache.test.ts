import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient } from '../helpers/http';
import { publishHosted, sha256, staticServer, waitForJob } from '../helpers/mirror';
import { rawGet } from '../helpers/upload';
import { recordRequests, type SeenRequest } from '../helpers/vagrant';

/** The pull-through cache: daemon B (`--upstream A`) answers boxes it does not have from A. */
describe('pull-through cache', () => {
  let a: TestDaemon;
  let b: TestDaemon;
  let aSeen: SeenRequest[];
  let bHttp: HttpClient;
  let aStopped = false;
  const v1 = randomBytes(200_000);
  const v2 = randomBytes(150_000);

  beforeAll(async () => {
    a = await startTestDaemon();
    const aHttp = a.http.withToken(a.adminToken);
    await aHttp.post('/api/boxyard/organizations', { organization: { name: 'bento' } });
    await publishHosted(aHttp, 'bento', 'debian', '1.0.0', v1);
    await publishHosted(aHttp, 'bento', 'debian', '2.0.0', v2);
    aSeen = recordRequests(a.server);
    b = await startTestDaemon({ config: { upstream: a.url } });
    bHttp = b.http.withToken(b.adminToken);
  });
  afterAll(async () => {
    if (!aStopped) await a?.stop();
    await b?.stop();
  });

  const downloads = () => aSeen.filter((r) => r.method === 'GET' && r.path.endsWith('/vagrant.box'));

  it('answers a box it does not have from the upstream catalog, with its own download URLs', async () => {
    const r = await b.http.get('/bento/debian');
    expect(r.status, r.text).toBe(200);
    expect(r.json.name).toBe('bento/debian');
    expect(r.json.versions.map((v: { version: string }) => v.version)).toEqual(['2.0.0', '1.0.0']);
    const p = r.json.versions[0].providers[0];
    expect(p).toMatchObject({
      name: 'virtualbox',
      architecture: 'amd64',
      checksum_type: 'sha256',
      checksum: sha256(v2),
    });
    expect(p.url.startsWith(`${b.url}/bento/boxes/debian/versions/2.0.0/`)).toBe(true);
    expect(downloads()).toEqual([]);
    const cache = await bHttp.get('/api/boxyard/cache');
    expect(cache.json.boxes).toEqual([
      expect.objectContaining({ tag: 'bento/debian', source: 'bento/debian', providers_total: 2, providers_cached: 0 }),
    ]);
  });

  it('fetches a file once, streaming it to the first client while storing it, then serves it locally', async () => {
    const url = `${b.url}/bento/boxes/debian/versions/2.0.0/providers/virtualbox/amd64/vagrant.box`;
    const first = await rawGet(url);
    expect(first.status).toBe(200);
    expect(sha256(first.body)).toBe(sha256(v2));
    await waitFor(async () => (await bHttp.get('/api/boxyard/cache')).json.boxes[0].providers_cached === 1);
    const second = await rawGet(url);
    expect(second.status).toBe(200);
    expect(second.headers.etag).toBe(`"${sha256(v2)}"`);
    expect(sha256(second.body)).toBe(sha256(v2));
    expect(downloads()).toHaveLength(1);
  });

  it("never adds upstream boxes to a local user's or a real organization's namespace", async () => {
    const aHttp = a.http.withToken(a.adminToken);
    await aHttp.post('/api/boxyard/organizations', { organization: { name: 'team' } });
    await publishHosted(aHttp, 'team', 'tool', '1.0.0', randomBytes(1000));
    await bHttp.post('/api/boxyard/organizations', { organization: { name: 'team' } });
    const n = aSeen.length;
    expect((await b.http.get('/team/tool')).status).toBe(404);
    expect((await b.http.get('/admin/tool')).status).toBe(404);
    expect(aSeen.slice(n)).toEqual([]);
  });

  it('keeps answering from what it holds when the upstream is gone: only stored files are listed', async () => {
    await a.stop();
    aStopped = true;
    await bHttp.put('/api/boxyard/settings', { settings: { cache_max_age_minutes: 0 } });
    const r = await b.http.get('/bento/debian');
    expect(r.status, r.text).toBe(200);
    expect(r.json.versions.map((v: { version: string }) => v.version)).toEqual(['2.0.0']);
    const dl = await rawGet(r.json.versions[0].providers[0].url);
    expect(sha256(dl.body)).toBe(sha256(v2));
    expect((await b.http.get('/bento/unknown')).status).toBe(404);
  });

  it('offline: answers what it holds and 404s the rest saying it is offline, without a connection', async () => {
    const up = await staticServer();
    try {
      const s = await bHttp.put('/api/boxyard/settings', { settings: { offline: true } });
      expect(s.json.settings).toMatchObject({ offline: true, offline_forced: false });
      // Point the cache at a server that counts connections: offline, it must see none.
      const u = await bHttp.post('/api/boxyard/upstreams', { upstream: { name: 'counted', url: up.url } });
      await bHttp.put('/api/boxyard/settings', { settings: { pull_through_upstream_id: u.json.upstream.id } });
      const miss = await b.http.get('/bento/other');
      expect(miss.status).toBe(404);
      expect(miss.json.errors[0]).toMatch(/offline/);
      const held = await b.http.get('/bento/debian');
      expect(held.json.versions.map((v: { version: string }) => v.version)).toEqual(['2.0.0']);
      const unheld = await b.http.get('/bento/boxes/debian/versions/1.0.0/providers/virtualbox/amd64/vagrant.box');
      expect(unheld.status).toBe(404);
      expect(unheld.json.errors[0]).toMatch(/offline and has not cached bento\/debian 1\.0\.0/);
      const m = await bHttp.post('/api/boxyard/mirrors', {
        mirror: { upstream_id: u.json.upstream.id, source: 'bento/other' },
      });
      expect(m.status, m.text).toBe(201);
      await new Promise((r) => setTimeout(r, 1500));
      const job = await waitForJob(bHttp, m.json.job.id, ['queued']);
      expect(job.message).toMatch(/Waiting: Boxyard is offline/);
      expect(up.connections()).toBe(0);
      // Back online the waiting job runs (and fails: the counting server has no such box).
      await bHttp.put('/api/boxyard/settings', { settings: { offline: false } });
      const after = await waitForJob(bHttp, m.json.job.id);
      expect(after.message).toMatch(/has no box bento\/other/);
      expect(up.connections()).toBeGreaterThan(0);
    } finally {
      await up.close();
    }
  });
});

describe('--offline', () => {
  it('opens no socket at all and cannot be switched off at run time', async () => {
    const up = await staticServer();
    const d = await startTestDaemon({ config: { offline: true, upstream: up.url } });
    try {
      const http = d.http.withToken(d.adminToken);
      expect((await d.http.get('/acme/box')).json.errors[0]).toMatch(/offline/);
      const m = await http.post('/api/boxyard/mirrors', { mirror: { upstream: { url: up.url }, source: 'acme/box' } });
      expect(m.status, m.text).toBe(201);
      await new Promise((r) => setTimeout(r, 1500));
      expect((await waitForJob(http, m.json.job.id, ['queued'])).message).toMatch(/offline/);
      const off = await http.put('/api/boxyard/settings', { settings: { offline: false } });
      expect(off.status).toBe(422);
      expect((await http.get('/api/boxyard/settings')).json.settings).toMatchObject({
        offline: true,
        offline_forced: true,
      });
      expect(up.connections()).toBe(0);
      expect(up.requests).toEqual([]);
    } finally {
      await d.stop();
      await up.close();
    }
  });
});

async function waitFor(check: () => Promise<boolean>): Promise<void> {
  const until = Date.now() + 20_000;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not reached in 20 s');
    await new Promise((r) => setTimeout(r, 50));
  }
}
