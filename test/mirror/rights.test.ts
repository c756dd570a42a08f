import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../daemon/src/lib/clock';
import { MirrorJson } from '../../daemon/src/contract/wire/mirror';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient } from '../helpers/http';
import { serveFile, serveJson, staticServer, waitForJob, type Job, type StaticServer } from '../helpers/mirror';

// A mirror runs with the rights of the user it runs as (its creator, or whoever resumed
// it last) as they are when it runs. Once they may no longer publish into its target, the mirror
// pauses with a message its target's owners see, publishes nothing, and its schedule waits until
// someone who may publish there resumes it, who then becomes the user it runs as.

const clock = new ManualClock(new Date());
let d: TestDaemon;
let s: StaticServer;
let admin: HttpClient;
let alice: HttpClient;

const catalog = (name: string, versions: string[]) =>
  serveJson({
    name,
    versions: versions.map((version) => ({
      version,
      providers: [{ name: 'virtualbox', url: `/files/${version}.box` }],
    })),
  });
const member = async (name: string) =>
  expect(
    (await alice.put(`/api/boxyard/organizations/a-org/members/${name}`, { member: { role: 'member' } })).status,
  ).toBe(200);
const removed = async (name: string) =>
  expect((await alice.delete(`/api/boxyard/organizations/a-org/members/${name}`)).status).toBe(204);
const released = async (box: string) => {
  const r = await d.http.get(`/a-org/${box}`);
  return r.status === 404 ? null : (r.json.versions as Array<{ version: string }>).map((v) => v.version);
};
const mirrorOf = async (http: HttpClient, id: string) => {
  const r = await http.get(`/api/boxyard/mirrors/${id}`);
  expect(r.status, r.text).toBe(200);
  return MirrorJson.parse(r.json.mirror);
};
const jobsOf = async (id: string) => (await alice.get(`/api/boxyard/mirror-jobs?mirror=${id}`)).json.jobs as Job[];
const PAUSED = (who: string) =>
  new RegExp(
    `^Paused: ${who} may no longer publish boxes in "a-org" \\(not a member of it now\\)\\. It publishes nothing until it is resumed\\.`,
  );

beforeAll(async () => {
  s = await staticServer();
  for (const v of ['1.0.0', '1.1.0', '1.2.0']) s.route(`/files/${v}.box`, serveFile(Buffer.from(`box ${v}`)));
  s.route('/up/box', catalog('up/box', ['1.0.0']));
  d = await startTestDaemon({ clock });
  admin = d.http.withToken(d.adminToken);
  expect((await admin.put('/api/boxyard/settings', { settings: { mirror_allowed_hosts: ['127.0.0.1'] } })).status).toBe(
    200,
  );
  alice = (await d.user('alice', { orgs: ['a-org'] })).http;
});
afterAll(async () => {
  await d?.stop();
  await s?.close();
});

describe('a mirror runs with the current rights of the user it runs as', () => {
  it('a scheduled mirror whose creator left the organization pauses, publishes nothing, and its owners see why', async () => {
    const bob = (await d.user('bob')).http;
    await member('bob');
    const made = await bob.post('/api/boxyard/mirrors', {
      mirror: { upstream: { url: s.url }, source: 'up/box', target: 'a-org/box', interval_minutes: 60 },
    });
    expect(made.status, made.text).toBe(201);
    const id = made.json.mirror.id as string;
    expect(made.json.mirror).toMatchObject({ runs_as: 'bob', paused: null });
    expect((await waitForJob(bob, made.json.job.id)).state).toBe('done');
    expect(await released('box')).toEqual(['1.0.0']);

    await removed('bob');
    s.route('/up/box', catalog('up/box', ['1.1.0', '1.0.0']));
    clock.advance(61 * 60_000);
    d.deps.mirror.runner.wake();
    let jobs: Job[] = [];
    for (const until = Date.now() + 20_000; jobs.length < 2; await new Promise((r) => setTimeout(r, 50))) {
      if (Date.now() > until) throw new Error('the schedule did not queue a job');
      jobs = await jobsOf(id);
    }
    const second = await waitForJob(alice, jobs[0].id);
    expect(second).toMatchObject({ state: 'failed', error_code: 'forbidden', published: [] });
    expect(second.message).toMatch(PAUSED('bob'));
    expect(await released('box')).toEqual(['1.0.0']);
    expect(s.requests).not.toContain('GET /files/1.1.0.box');

    // The target's owner sees the paused mirror and why; bob no longer sees it at all.
    const seen = await mirrorOf(alice, id);
    expect(seen).toMatchObject({ runs_as: 'bob', next_run_at: null, last_job: { state: 'failed' } });
    expect(seen.paused).toMatch(PAUSED('bob'));
    expect(
      ((await alice.get('/api/boxyard/mirrors')).json.mirrors as Array<{ id: string; paused: string }>).find(
        (m) => m.id === id,
      )?.paused,
    ).toBe(seen.paused);
    expect((await bob.get(`/api/boxyard/mirrors/${id}`)).status).toBe(404);
    // Its schedule waits, and it is not run by hand either, until it is resumed.
    expect(
      (await d.deps.mirror.repo.dueMirrors(new Date(clock.now().getTime() + 365 * 86_400_000).toISOString())).map(
        (m) => m.id,
      ),
    ).not.toContain(id);
    const run = await alice.post(`/api/boxyard/mirrors/${id}/run`);
    expect(run.status).toBe(422);
    expect(run.json.errors[0]).toMatch(/is paused; resume it first/);
    expect((await bob.post(`/api/boxyard/mirrors/${id}/resume`)).status).toBe(404);

    // Resumed by the owner: it runs as her, through an upstream of hers at the same address
    // (bob's held no token, so nothing of his is used), and the schedule takes it up again.
    const resumed = await alice.post(`/api/boxyard/mirrors/${id}/resume`);
    expect(resumed.status, resumed.text).toBe(200);
    const m = MirrorJson.parse(resumed.json.mirror);
    expect(m).toMatchObject({ runs_as: 'alice', paused: null, upstream: { url: s.url } });
    assert(m.upstream, 'the resumed mirror has no upstream');
    assert(m.next_run_at, 'the resumed mirror has no next run');
    expect(m.upstream.id).not.toBe(made.json.mirror.upstream.id);
    expect((await alice.get(`/api/boxyard/upstreams/${m.upstream.id}`)).status).toBe(200);
    expect(Date.parse(m.next_run_at)).toBeGreaterThan(clock.now().getTime());
    expect((await alice.post(`/api/boxyard/mirrors/${id}/resume`)).status).toBe(422);
    const again = await waitForJob(alice, (await alice.post(`/api/boxyard/mirrors/${id}/run`)).json.job.id);
    expect(again).toMatchObject({ state: 'done', published: [{ box: 'a-org/box', versions: ['1.1.0'] }] });
    expect(await released('box')).toEqual(['1.1.0', '1.0.0']);
  });

  it("a run asked for by an owner still uses its user's rights; another user's token is never used by whoever resumes it", async () => {
    const carl = (await d.user('carl')).http;
    await member('carl');
    s.route('/up/tok', catalog('up/tok', ['1.0.0']));
    const made = await carl.post('/api/boxyard/mirrors', {
      mirror: { upstream: { url: s.url, token: 'carls-token' }, source: 'up/tok', target: 'a-org/tok', run: false },
    });
    expect(made.status, made.text).toBe(201);
    const id = made.json.mirror.id as string;
    await removed('carl');
    const job = await waitForJob(alice, (await alice.post(`/api/boxyard/mirrors/${id}/run`)).json.job.id);
    expect(job).toMatchObject({ state: 'failed', error_code: 'forbidden' });
    expect(job.message).toMatch(PAUSED('carl'));
    expect(await released('tok')).toBeNull();

    const refused = await alice.post(`/api/boxyard/mirrors/${id}/resume`, {});
    expect(refused.status).toBe(403);
    expect(refused.json.errors[0]).toMatch(/another user's and holds their token or CA: give one of your own/);
    expect((await mirrorOf(alice, id)).paused).toMatch(PAUSED('carl'));
    const resumed = await alice.post(`/api/boxyard/mirrors/${id}/resume`, { mirror: { upstream: { url: s.url } } });
    expect(resumed.status, resumed.text).toBe(200);
    expect(resumed.json.mirror).toMatchObject({ runs_as: 'alice', paused: null });
    expect(resumed.json.mirror.upstream.id).not.toBe(made.json.mirror.upstream.id);
    const done = await waitForJob(alice, (await alice.post(`/api/boxyard/mirrors/${id}/run`)).json.job.id);
    expect(done).toMatchObject({ state: 'done', published: [{ box: 'a-org/tok', versions: ['1.0.0'] }] });
  });

  it("an administrator resuming a user's mirror takes over the address under the user's rule, not an administrator's", async () => {
    const fay = (await d.user('fay')).http;
    await member('fay');
    s.route('/up/fay', catalog('up/fay', ['1.0.0']));
    const made = await fay.post('/api/boxyard/mirrors', {
      mirror: { upstream: { url: s.url }, source: 'up/fay', target: 'a-org/fay', run: false },
    });
    expect(made.status, made.text).toBe(201);
    const id = made.json.mirror.id as string;
    await removed('fay');
    expect((await waitForJob(alice, (await alice.post(`/api/boxyard/mirrors/${id}/run`)).json.job.id)).state).toBe(
      'failed',
    );
    const resumed = await admin.post(`/api/boxyard/mirrors/${id}/resume`, {});
    expect(resumed.status, resumed.text).toBe(200);
    expect(resumed.json.mirror).toMatchObject({ runs_as: 'admin', paused: null });
    expect(resumed.json.mirror.upstream.id).not.toBe(made.json.mirror.upstream.id);
    // fay chose 127.0.0.1 as a user: the administrator's copy reaches it only while it is allowed.
    expect((await admin.put('/api/boxyard/settings', { settings: { mirror_allowed_hosts: [] } })).status).toBe(200);
    try {
      const asked = s.requests.length;
      const job = await waitForJob(admin, (await admin.post(`/api/boxyard/mirrors/${id}/run`)).json.job.id);
      expect(job).toMatchObject({ state: 'failed', error_code: 'address_not_allowed' });
      expect(s.requests.length).toBe(asked);
    } finally {
      expect(
        (await admin.put('/api/boxyard/settings', { settings: { mirror_allowed_hosts: ['127.0.0.1'] } })).status,
      ).toBe(200);
    }
    expect(await released('fay')).toBeNull();
  });

  it('removed while its files download: the job publishes nothing', async () => {
    const dan = (await d.user('dan')).http;
    await member('dan');
    let release = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    s.route('/files/held.box', (req, res) => {
      res.setHeader('content-length', '8');
      if (req.method === 'HEAD') {
        res.end();
        return;
      }
      res.write('box ');
      void held.then(() => res.end('held'));
    });
    s.route(
      '/up/held',
      serveJson({
        name: 'up/held',
        versions: [{ version: '1.0.0', providers: [{ name: 'virtualbox', url: '/files/held.box' }] }],
      }),
    );
    const made = await dan.post('/api/boxyard/mirrors', {
      mirror: { upstream: { url: s.url }, source: 'up/held', target: 'a-org/held' },
    });
    expect(made.status, made.text).toBe(201);
    for (
      const until = Date.now() + 20_000;
      !s.requests.includes('GET /files/held.box');
      await new Promise((r) => setTimeout(r, 20))
    ) {
      if (Date.now() > until) throw new Error('the download did not start');
    }
    await removed('dan');
    release();
    const job = await waitForJob(alice, made.json.job.id);
    expect(job).toMatchObject({ state: 'failed', error_code: 'forbidden', files_done: 1, published: [] });
    expect(job.message).toMatch(PAUSED('dan'));
    expect(await released('held')).toBeNull();
  });

  it('an administrator keeps publishing into any organization while one, and pauses once no longer one', async () => {
    await d.user('erin');
    expect((await admin.patch('/api/boxyard/users/erin', { user: { admin: true } })).status).toBe(200);
    const erin = d.http.withToken(
      (await d.http.post('/api/v1/authenticate', { user: { login: 'erin', password: 'erin-password' } })).json.token,
    );
    s.route('/up/adm', catalog('up/adm', ['1.0.0']));
    const made = await erin.post('/api/boxyard/mirrors', {
      mirror: { upstream: { url: s.url }, source: 'up/adm', target: 'a-org/adm' },
    });
    expect(made.status, made.text).toBe(201);
    expect((await waitForJob(erin, made.json.job.id)).state).toBe('done');
    s.route('/up/adm', catalog('up/adm', ['1.2.0', '1.0.0']));
    expect((await admin.patch('/api/boxyard/users/erin', { user: { admin: false } })).status).toBe(200);
    const job = await waitForJob(
      alice,
      (await alice.post(`/api/boxyard/mirrors/${made.json.mirror.id}/run`)).json.job.id,
    );
    expect(job).toMatchObject({ state: 'failed', error_code: 'forbidden' });
    expect(job.message).toMatch(PAUSED('erin'));
    expect(await released('adm')).toEqual(['1.0.0']);
  });
});
