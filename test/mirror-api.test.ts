import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../daemon/src/lib/clock';
import { startTestDaemon, type TestDaemon } from './helpers/daemon';
import type { HttpClient } from './helpers/http';
import { serveFile, serveJson, sha256, staticServer, waitForJob, type StaticServer } from './helpers/mirror';

/** Upstreams and mirrors through the API: validation, who sees what, schedules and cancelling. */
describe('mirror API', () => {
  let d: TestDaemon;
  let s: StaticServer;
  let admin: HttpClient;
  let alice: HttpClient;
  let bob: HttpClient;
  const clock = new ManualClock(new Date());
  const catalog = (versions: string[]) => serveJson({
    name: 'acme/box',
    versions: versions.map((version) => ({ version, providers: [{ name: 'virtualbox', url: `/files/${version}.box` }] })),
  });

  beforeAll(async () => {
    s = await staticServer();
    for (const v of ['1.0.0', '1.1.0']) s.route(`/files/${v}.box`, serveFile(Buffer.from(`box ${v}`)));
    s.route('/acme/box', catalog(['1.0.0']));
    // A slow file, to cancel a job while it downloads.
    s.route('/files/slow.box', (req, res) => {
      res.setHeader('content-length', '10000000');
      if (req.method === 'HEAD') res.end();
      else res.write(randomBytes(1000));
    });
    s.route('/acme/slow', serveJson({ name: 'acme/slow', versions: [{ version: '1.0.0', providers: [{ name: 'virtualbox', url: '/files/slow.box' }] }] }));
    d = await startTestDaemon({ clock });
    admin = d.http.withToken(d.adminToken);
    alice = (await d.user('alice', { orgs: ['labs'] })).http;
    bob = (await d.user('bob')).http;
  });
  afterAll(async () => {
    await d?.stop();
    await s?.close();
  });

  it('upstreams: the token is write-only, and only their creator and administrators see them', async () => {
    const r = await alice.post('/api/boxyard/upstreams', { upstream: { name: 'static', url: s.url, token: 'secret-token' } });
    expect(r.status, r.text).toBe(201);
    expect(r.json.upstream).toMatchObject({ name: 'static', url: s.url, kind: 'registry', has_token: true, timeout_seconds: 30, max_failures: 3, pause_minutes: 5, failures: 0 });
    expect(r.text).not.toContain('secret-token');
    const id = r.json.upstream.id;
    expect((await bob.get(`/api/boxyard/upstreams/${id}`)).status).toBe(404);
    expect((await bob.get('/api/boxyard/upstreams')).json.upstreams).toEqual([]);
    expect((await admin.get(`/api/boxyard/upstreams/${id}`)).status).toBe(200);
    const cleared = await alice.patch(`/api/boxyard/upstreams/${id}`, { upstream: { token: null, timeout_seconds: 5 } });
    expect(cleared.json.upstream).toMatchObject({ has_token: false, timeout_seconds: 5 });
    expect((await alice.post('/api/boxyard/upstreams', { upstream: { name: 'STATIC', url: s.url } })).status).toBe(422);
    expect((await alice.post('/api/boxyard/upstreams', { upstream: { url: 'ftp://x' } })).status).toBe(403);
    expect((await alice.post('/api/boxyard/upstreams', { upstream: { url: '/srv/export' } })).json.upstream).toMatchObject({ kind: 'folder', name: 'export' });
    expect((await alice.post('/api/boxyard/upstreams', { upstream: { url: 'https://example.org/x/metadata.json' } })).json.upstream.kind).toBe('catalog');
    expect((await d.http.get('/api/boxyard/upstreams')).status).toBe(401);
  });

  it('mirrors: bad input is refused and changes nothing', async () => {
    const bad = [
      { upstream: { url: s.url }, source: '../etc', target: 'labs/box' },
      { upstream: { url: s.url }, source: 'acme/box', versions: '>= 1', latest: 2 },
      { upstream: { url: s.url }, source: 'acme/box', versions: 'v1 or so' },
      { upstream: { url: s.url }, source: 'acme/box', target: 'labs' },
      { upstream: { url: s.url }, source: 'acme/box', architectures: ['z80'] },
      { source: 'acme/box' },
      { upstream: { url: s.url }, source: 'api/box' },
    ];
    for (const mirror of bad) {
      const r = await alice.post('/api/boxyard/mirrors', { mirror });
      expect(r.status, JSON.stringify(mirror)).toBe(403);
      expect(r.json).toMatchObject({ success: false, errors: [expect.any(String)] });
    }
    expect((await alice.get('/api/boxyard/mirrors')).json.mirrors).toEqual([]);
  });

  it('mirrors: a target the caller may not manage is 403; a new one is created as an organization they own', async () => {
    const forbidden = await bob.post('/api/boxyard/mirrors', { mirror: { upstream: { url: s.url }, source: 'acme/box', target: 'labs/box' } });
    expect(forbidden.status).toBe(403);
    const r = await bob.post('/api/boxyard/mirrors', { mirror: { upstream: { url: s.url }, source: 'acme/box', target: 'bobs/box', run: false } });
    expect(r.status, r.text).toBe(201);
    expect(r.json).toMatchObject({ job: null, mirror: { target: 'bobs/box', private: false, last_job: null } });
    expect((await bob.get('/api/boxyard/organizations/bobs')).json.organization.members).toEqual([expect.objectContaining({ username: 'bob', role: 'owner' })]);
    expect((await alice.get(`/api/boxyard/mirrors/${r.json.mirror.id}`)).status).toBe(404);
    expect((await bob.delete(`/api/boxyard/mirrors/${r.json.mirror.id}`)).status).toBe(204);
  });

  it('a scheduled mirror runs again when due and picks up new versions', async () => {
    const r = await alice.post('/api/boxyard/mirrors', { mirror: { upstream: { url: s.url }, source: 'acme/box', target: 'labs/box', interval_minutes: 60 } });
    expect(r.status, r.text).toBe(201);
    expect((await waitForJob(alice, r.json.job.id)).published).toEqual([{ box: 'labs/box', versions: ['1.0.0'] }]);
    s.route('/acme/box', catalog(['1.1.0', '1.0.0']));
    clock.advance(61 * 60_000);
    d.deps.mirror.runner.wake();
    let jobs: Array<{ id: string; state: string }> = [];
    for (const until = Date.now() + 20_000; jobs.length < 2; await new Promise((res) => setTimeout(res, 50))) {
      if (Date.now() > until) throw new Error('the schedule did not queue a job');
      jobs = (await alice.get(`/api/boxyard/mirror-jobs?mirror=${r.json.mirror.id}`)).json.jobs;
    }
    expect((await waitForJob(alice, jobs[0].id)).published).toEqual([{ box: 'labs/box', versions: ['1.1.0'] }]);
    const doc = (await d.http.get('/labs/box')).json;
    expect(doc.versions[0].providers[0]).toMatchObject({ checksum: sha256(Buffer.from('box 1.1.0')), checksum_type: 'sha256' });
  });

  it('a running job can be cancelled; a finished one cannot; a mirror runs one job at a time', async () => {
    const r = await alice.post('/api/boxyard/mirrors', { mirror: { upstream: { url: s.url }, source: 'acme/slow', target: 'labs/slow' } });
    const jobId = r.json.job.id;
    await waitForJob(alice, jobId, ['running']);
    expect((await alice.post(`/api/boxyard/mirrors/${r.json.mirror.id}/run`)).status).toBe(422);
    expect((await bob.post(`/api/boxyard/mirror-jobs/${jobId}/cancel`)).status).toBe(404);
    const c = await alice.post(`/api/boxyard/mirror-jobs/${jobId}/cancel`);
    expect(c.status, c.text).toBe(200);
    expect(c.json.job).toMatchObject({ state: 'cancelled' });
    expect((await alice.post(`/api/boxyard/mirror-jobs/${jobId}/cancel`)).status).toBe(422);
    expect((await d.http.get('/labs/slow')).status).toBe(404);
  });
});
