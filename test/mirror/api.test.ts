import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../daemon/src/lib/clock';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient } from '../helpers/http';
import {
  serveFile,
  serveJson,
  sha256,
  staticServer,
  tricklingFile,
  waitForJob,
  type StaticServer,
} from '../helpers/mirror';

/** Upstreams and mirrors through the API: validation, who sees what, schedules and cancelling. */
describe('mirror API', () => {
  let d: TestDaemon;
  let s: StaticServer;
  let admin: HttpClient;
  let alice: HttpClient;
  let bob: HttpClient;
  const clock = new ManualClock(new Date());
  const catalog = (versions: string[]) =>
    serveJson({
      name: 'acme/box',
      versions: versions.map((version) => ({
        version,
        providers: [{ name: 'virtualbox', url: `/files/${version}.box` }],
      })),
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
    s.route(
      '/acme/slow',
      serveJson({
        name: 'acme/slow',
        versions: [{ version: '1.0.0', providers: [{ name: 'virtualbox', url: '/files/slow.box' }] }],
      }),
    );
    d = await startTestDaemon({ clock });
    admin = d.http.withToken(d.adminToken);
    // Upstreams of non-administrators reach only public addresses and those allowed.
    expect(
      (await admin.put('/api/boxyard/settings', { settings: { mirror_allowed_hosts: ['127.0.0.1', '::1'] } })).status,
    ).toBe(200);
    alice = (await d.user('alice', { orgs: ['labs'] })).http;
    bob = (await d.user('bob')).http;
  });
  afterAll(async () => {
    await d?.stop();
    await s?.close();
  });

  it('upstreams: the token is write-only, and only their creator and administrators see them', async () => {
    const r = await alice.post('/api/boxyard/upstreams', {
      upstream: { name: 'static', url: s.url, token: 'secret-token' },
    });
    expect(r.status, r.text).toBe(201);
    expect(r.json.upstream).toMatchObject({
      name: 'static',
      url: s.url,
      kind: 'registry',
      has_token: true,
      timeout_seconds: 30,
      max_failures: 3,
      pause_minutes: 5,
      failures: 0,
    });
    expect(r.text).not.toContain('secret-token');
    const id = r.json.upstream.id;
    expect((await bob.get(`/api/boxyard/upstreams/${id}`)).status).toBe(404);
    expect((await bob.get('/api/boxyard/upstreams')).json.upstreams).toEqual([]);
    expect((await admin.get(`/api/boxyard/upstreams/${id}`)).status).toBe(200);
    const cleared = await alice.patch(`/api/boxyard/upstreams/${id}`, {
      upstream: { token: null, timeout_seconds: 5 },
    });
    expect(cleared.json.upstream).toMatchObject({ has_token: false, timeout_seconds: 5 });
    expect((await alice.post('/api/boxyard/upstreams', { upstream: { name: 'STATIC', url: s.url } })).status).toBe(422);
    expect((await alice.post('/api/boxyard/upstreams', { upstream: { url: 'ftp://x' } })).status).toBe(403);
    // A folder on the daemon's disk is read with the daemon's rights: administrators only.
    expect((await alice.post('/api/boxyard/upstreams', { upstream: { url: '/srv/export' } })).status).toBe(403);
    expect((await alice.patch(`/api/boxyard/upstreams/${id}`, { upstream: { url: 'file:///etc' } })).status).toBe(403);
    expect(
      (await admin.post('/api/boxyard/upstreams', { upstream: { url: '/srv/export' } })).json.upstream,
    ).toMatchObject({ kind: 'folder', name: 'export' });
    // A token does not follow its upstream to another origin.
    await alice.patch(`/api/boxyard/upstreams/${id}`, { upstream: { token: 'again' } });
    expect(
      (
        await alice.patch(`/api/boxyard/upstreams/${id}`, {
          upstream: { url: s.url.replace('127.0.0.1', 'localhost') },
        })
      ).json.upstream.has_token,
    ).toBe(false);
    await alice.patch(`/api/boxyard/upstreams/${id}`, { upstream: { url: s.url } });
    expect(
      (await alice.post('/api/boxyard/upstreams', { upstream: { url: 'https://example.org/x/metadata.json' } })).json
        .upstream.kind,
    ).toBe('catalog');
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
    const forbidden = await bob.post('/api/boxyard/mirrors', {
      mirror: { upstream: { url: s.url }, source: 'acme/box', target: 'labs/box' },
    });
    expect(forbidden.status).toBe(403);
    const r = await bob.post('/api/boxyard/mirrors', {
      mirror: { upstream: { url: s.url }, source: 'acme/box', target: 'bobs/box', run: false },
    });
    expect(r.status, r.text).toBe(201);
    expect(r.json).toMatchObject({
      job: null,
      mirror: { target: 'bobs/box', private: null, follow_revocations: false, parallel: 4, last_job: null },
    });
    expect((await bob.get('/api/boxyard/organizations/bobs')).json.organization.members).toEqual([
      expect.objectContaining({ username: 'bob', role: 'owner' }),
    ]);
    expect((await alice.get(`/api/boxyard/mirrors/${r.json.mirror.id}`)).status).toBe(404);
    expect((await bob.delete(`/api/boxyard/mirrors/${r.json.mirror.id}`)).status).toBe(204);
  });

  it('a scheduled mirror runs again when due and picks up new versions', async () => {
    const r = await alice.post('/api/boxyard/mirrors', {
      mirror: { upstream: { url: s.url }, source: 'acme/box', target: 'labs/box', interval_minutes: 60 },
    });
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
    expect(doc.versions[0].providers[0]).toMatchObject({
      checksum: sha256(Buffer.from('box 1.1.0')),
      checksum_type: 'sha256',
    });
  });

  it('a running job can be cancelled; a finished one cannot; a mirror runs one job at a time', async () => {
    const r = await alice.post('/api/boxyard/mirrors', {
      mirror: { upstream: { url: s.url }, source: 'acme/slow', target: 'labs/slow' },
    });
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

  it('a daemon whose running job was taken over (a new leader queued it again) stops downloading and leaves the job alone', async () => {
    const file = tricklingFile();
    s.route('/files/taken.box', file.handler);
    s.route(
      '/acme/taken',
      serveJson({
        name: 'acme/taken',
        versions: [{ version: '1.0.0', providers: [{ name: 'virtualbox', url: '/files/taken.box' }] }],
      }),
    );
    const r = await alice.post('/api/boxyard/mirrors', {
      mirror: { upstream: { url: s.url }, source: 'acme/taken', target: 'labs/taken' },
    });
    const jobId = r.json.job.id;
    for (
      const until = Date.now() + 20_000;
      !s.requests.includes('GET /files/taken.box');
      await new Promise((res) => setTimeout(res, 50))
    ) {
      if (Date.now() > until) throw new Error('the download did not start');
    }
    // What another daemon that took the lead does: queue it again, then run it as its own.
    await d.deps.db
      .updateTable('mirror_jobs')
      .set({ runner: 'runner-of-the-new-leader' })
      .where('id', '=', jobId)
      .execute();
    for (const until = Date.now() + 20_000; file.closed() === 0; await new Promise((res) => setTimeout(res, 50))) {
      if (Date.now() > until) throw new Error('the download went on after the job was taken over');
    }
    // Neither failed nor queued again by this daemon: the new leader settles it.
    const row = await d.deps.db.selectFrom('mirror_jobs').selectAll().where('id', '=', jobId).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ state: 'running', runner: 'runner-of-the-new-leader', error_code: null });
    expect((await alice.post(`/api/boxyard/mirror-jobs/${jobId}/cancel`)).status).toBe(200);
  });

  it('a failing scheduled mirror waits for its next turn instead of looping', async () => {
    const r = await alice.post('/api/boxyard/mirrors', {
      mirror: { upstream: { url: s.url }, source: 'acme/missing', target: 'labs/missing', interval_minutes: 30 },
    });
    expect((await waitForJob(alice, r.json.job.id)).state).toBe('failed');
    await new Promise((res) => setTimeout(res, 1200));
    d.deps.mirror.runner.wake();
    expect((await alice.get(`/api/boxyard/mirror-jobs?mirror=${r.json.mirror.id}`)).json.jobs).toHaveLength(1);
    expect(
      Date.parse((await alice.get(`/api/boxyard/mirrors/${r.json.mirror.id}`)).json.mirror.next_run_at),
    ).toBeGreaterThan(clock.now().getTime());
  });

  it('retention bounds what is fetched: a re-run does not fetch and prune the same versions again', async () => {
    s.route('/acme/box', catalog(['1.2.0', '1.1.0', '1.0.0']));
    for (const v of ['1.2.0']) s.route(`/files/${v}.box`, serveFile(Buffer.from(`box ${v}`)));
    const r = await alice.post('/api/boxyard/mirrors', {
      mirror: { upstream: { url: s.url }, source: 'acme/box', target: 'labs/kept', retain: 1 },
    });
    expect(await waitForJob(alice, r.json.job.id)).toMatchObject({
      files_total: 1,
      published: [{ box: 'labs/kept', versions: ['1.2.0'] }],
    });
    const again = await waitForJob(
      alice,
      (await alice.post(`/api/boxyard/mirrors/${r.json.mirror.id}/run`)).json.job.id,
    );
    expect(again).toMatchObject({ state: 'done', files_total: 0, published: [{ box: 'labs/kept', versions: [] }] });
  });

  it("only a mirror's creator moves its target or makes its boxes public", async () => {
    const carol = await d.user('carol');
    await alice.put('/api/boxyard/organizations/labs/members/carol', { member: { role: 'member' } });
    const r = await alice.post('/api/boxyard/mirrors', {
      mirror: { upstream: { url: s.url }, source: 'acme/box', target: 'labs/secret', private: true, run: false },
    });
    expect(
      (await carol.http.patch(`/api/boxyard/mirrors/${r.json.mirror.id}`, { mirror: { private: false } })).status,
    ).toBe(403);
    expect(
      (await carol.http.patch(`/api/boxyard/mirrors/${r.json.mirror.id}`, { mirror: { target: 'carol/secret' } }))
        .status,
    ).toBe(403);
    expect(
      (await carol.http.patch(`/api/boxyard/mirrors/${r.json.mirror.id}`, { mirror: { retain: 3 } })).json.mirror
        .retain,
    ).toBe(3);
  });
});
