import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient } from '../helpers/http';
import { mirrorOnce, publishHosted, sha256, waitForJob } from '../helpers/mirror';
import { rawGet } from '../helpers/upload';

/** Two daemons on 127.0.0.1: A is the upstream, B mirrors from it. */
describe('mirror jobs between two daemons', () => {
  let a: TestDaemon;
  let b: TestDaemon;
  let aHttp: HttpClient;
  let bHttp: HttpClient;
  const files: Record<string, Buffer> = {};

  beforeAll(async () => {
    a = await startTestDaemon();
    b = await startTestDaemon();
    aHttp = a.http.withToken(a.adminToken);
    bHttp = b.http.withToken(b.adminToken);
    await aHttp.post('/api/boxyard/organizations', { organization: { name: 'acme' } });
    for (const v of ['1.0.0', '1.1.0', '2.0.0']) {
      files[`${v}-amd64`] = randomBytes(300_000 + Number(v[0]) * 1000);
      await publishHosted(aHttp, 'acme', 'web', v, files[`${v}-amd64`]);
    }
    files['2.0.0-arm64'] = randomBytes(123_456);
    await publishHosted(aHttp, 'acme', 'web', '2.0.0-rc1', files['2.0.0-arm64'], { architecture: 'arm64' });
    files.db = randomBytes(50_000);
    await publishHosted(aHttp, 'acme', 'db', '1.0.0', files.db, { provider: 'libvirt' });
  });
  let aStopped = false;
  afterAll(async () => {
    if (!aStopped) await a?.stop();
    await b?.stop();
  });

  const catalog = async (name: string) => {
    const r = await b.http.get(`/${name}`);
    expect(r.status, r.text).toBe(200);
    return r.json as {
      name: string;
      versions: Array<{
        version: string;
        providers: Array<{ name: string; url: string; checksum: string; checksum_type: string; architecture: string }>;
      }>;
    };
  };

  it('copies chosen versions, verifies them and publishes them released, pointing at this daemon', async () => {
    const { job } = await mirrorOnce(bHttp, {
      upstream: { url: a.url },
      source: 'acme/web',
      versions: '>= 1.1, < 3',
      architectures: ['amd64'],
    });
    expect(job).toMatchObject({
      state: 'done',
      files_total: 2,
      files_done: 2,
      published: [{ box: 'acme/web', versions: ['2.0.0', '1.1.0'] }],
    });
    expect(job.bytes_done).toBe(job.bytes_total);
    expect(job.bytes_total).toBe(files['2.0.0-amd64'].length + files['1.1.0-amd64'].length);
    const doc = await catalog('acme/web');
    expect(doc.versions.map((v) => v.version)).toEqual(['2.0.0', '1.1.0']);
    const p = doc.versions[0].providers[0];
    expect(p).toMatchObject({
      name: 'virtualbox',
      architecture: 'amd64',
      checksum_type: 'sha256',
      checksum: sha256(files['2.0.0-amd64']),
    });
    expect(p.url.startsWith(b.url)).toBe(true);
    const dl = await rawGet(p.url);
    expect(dl.status).toBe(200);
    expect(sha256(dl.body)).toBe(sha256(files['2.0.0-amd64']));
  });

  it('a re-run picks up only what is new, with latest N and retention', async () => {
    const created = await bHttp.post('/api/boxyard/mirrors', {
      mirror: { upstream: { url: a.url }, source: 'acme/web', target: 'lab/web', latest: 2, retain: 2 },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.json.mirror).toMatchObject({
      source: 'acme/web',
      target: 'lab/web',
      latest: 2,
      retain: 2,
      upstream: { url: a.url, kind: 'registry' },
    });
    const first = await waitForJob(bHttp, created.json.job.id);
    expect(first.published).toEqual([{ box: 'lab/web', versions: ['2.0.0', '2.0.0-rc1'] }]);
    const again = await bHttp.post(`/api/boxyard/mirrors/${created.json.mirror.id}/run`);
    expect(again.status, again.text).toBe(201);
    const second = await waitForJob(bHttp, again.json.job.id);
    expect(second).toMatchObject({ state: 'done', files_total: 0, published: [{ box: 'lab/web', versions: [] }] });
    const f = randomBytes(10_000);
    await publishHosted(aHttp, 'acme', 'web', '3.0.0', f);
    const third = await waitForJob(
      bHttp,
      (await bHttp.post(`/api/boxyard/mirrors/${created.json.mirror.id}/run`)).json.job.id,
    );
    expect(third.published).toEqual([{ box: 'lab/web', versions: ['3.0.0'], pruned: ['2.0.0-rc1'] }]);
    expect((await catalog('lab/web')).versions.map((v) => v.version)).toEqual(['3.0.0', '2.0.0']);
  });

  it('mirrors every box of an organization', async () => {
    const { job } = await mirrorOnce(bHttp, {
      upstream: { url: a.url },
      source: 'acme',
      target: 'copy',
      versions: '1.0.0',
    });
    expect(job.state, job.message ?? '').toBe('done');
    expect(job.published.map((p) => p.box).sort()).toEqual(['copy/db', 'copy/web']);
    expect((await catalog('copy/db')).versions[0].providers[0]).toMatchObject({
      name: 'libvirt',
      checksum: sha256(files.db),
    });
  });

  it('keeps serving mirrored boxes once the upstream is gone', async () => {
    await a.stop();
    aStopped = true;
    const doc = await catalog('acme/web');
    const dl = await rawGet(doc.versions[1].providers[0].url);
    expect(sha256(dl.body)).toBe(sha256(files['1.1.0-amd64']));
  });
});
