import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type * as BM from '../../daemon/src/contract/bodies/mirror';
import * as M from '../../daemon/src/contract/wire/mirror';
import { cachedBoxJson, jobJson, mirrorJson, upstreamJson } from '../../daemon/src/mirror/serialize';
import { conforms, fits } from '../helpers/contract';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient } from '../helpers/http';
import { publishHosted, waitForJob } from '../helpers/mirror';
import { rawPut } from '../helpers/upload';
import { makeBoxFile } from '../helpers/vagrant';

// The mirroring API against the wire contract the web UI speaks (daemon/src/contract/):
// bodies typed by contract/bodies/mirror.ts are accepted, answers parse with contract/wire/mirror.ts
// and carry nothing it leaves out. Daemon A is the upstream; B mirrors and caches it.

fits<M.UpstreamJson>()(upstreamJson);
fits<M.JobJson>()(jobJson);
fits<M.MirrorJson>()(mirrorJson);
fits<M.CachedBoxJson>()(cachedBoxJson);

let a: TestDaemon;
let b: TestDaemon;
let bHttp: HttpClient;
const tmp = mkdtempSync(join(tmpdir(), 'boxyard-contract-'));

beforeAll(async () => {
  a = await startTestDaemon();
  const aHttp = a.http.withToken(a.adminToken);
  await aHttp.post('/api/boxyard/organizations', { organization: { name: 'bento' } });
  await publishHosted(aHttp, 'bento', 'debian', '1.0.0', randomBytes(20_000));
  await publishHosted(aHttp, 'bento', 'alpine', '3.0.0', randomBytes(10_000));
  b = await startTestDaemon({ config: { upstream: a.url } });
  bHttp = b.http.withToken(b.adminToken);
  await bHttp.post('/api/boxyard/organizations', { organization: { name: 'lab' } });
});
afterAll(async () => {
  await b?.stop();
  await a?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

describe('mirroring answers', () => {
  it('upstreams, mirrors and their jobs', async () => {
    const upstream = conforms(
      M.UpstreamAnswer,
      await bHttp.post('/api/boxyard/upstreams', {
        upstream: { name: 'a', url: a.url, token: 'secret' } satisfies z.input<typeof BM.CreateUpstream>,
      }),
      201,
    );
    expect(upstream.upstream.has_token).toBe(true);
    conforms(M.UpstreamsAnswer, await bHttp.get('/api/boxyard/upstreams'));

    const created = conforms(
      M.CreatedMirrorAnswer,
      await bHttp.post('/api/boxyard/mirrors', {
        mirror: {
          upstream_id: upstream.upstream.id,
          source: 'bento/debian',
          target: 'lab/debian',
          providers: ['virtualbox'],
          run: true,
        } satisfies z.input<typeof BM.CreateMirror>,
      }),
      201,
    );
    assert(created.job, 'the mirror was made with run: true, yet no job started');
    const done = await waitForJob(bHttp, created.job.id);
    expect(done.state).toBe('done');
    const job = conforms(M.JobAnswer, await bHttp.get(`/api/boxyard/mirror-jobs/${created.job.id}`));
    expect(job.job.published).toEqual([{ box: 'lab/debian', versions: ['1.0.0'] }]);
    conforms(M.JobsAnswer, await bHttp.get(`/api/boxyard/mirror-jobs?mirror=${created.mirror.id}`));
    const mirrors = conforms(M.MirrorsAnswer, await bHttp.get('/api/boxyard/mirrors'));
    expect(mirrors.mirrors[0].last_job?.state).toBe('done');

    const paused = conforms(
      M.CreatedMirrorAnswer,
      await bHttp.post('/api/boxyard/mirrors', {
        mirror: {
          upstream_id: upstream.upstream.id,
          source: 'bento/alpine',
          target: 'lab/alpine',
          versions: '>= 3',
          interval_minutes: 60,
          retain: 2,
          run: false,
        } satisfies z.input<typeof BM.CreateMirror>,
      }),
      201,
    );
    expect(paused.job).toBeNull();
    conforms(M.JobAnswer, await bHttp.post(`/api/boxyard/mirrors/${paused.mirror.id}/run`), 201);
  });

  it('the pull-through cache', async () => {
    expect((await b.http.get('/bento/alpine')).status).toBe(200);
    const cache = conforms(M.CacheAnswer, await bHttp.get('/api/boxyard/cache'));
    expect(cache.boxes.map((c) => c.tag)).toContain('bento/alpine');
  });

  it('an imported .box file', async () => {
    const file = await makeBoxFile(join(tmp, 'x.box'), 'libvirt', 16 * 1024, 'arm64');
    const r = await rawPut(`${b.url}/api/boxyard/import/lab/imported/1.0.0?release=true`, file, {
      authorization: `Bearer ${b.adminToken}`,
      'content-length': String(file.length),
      'content-type': 'application/octet-stream',
    });
    const answer = conforms(M.ImportAnswer, { ...r, json: JSON.parse(r.text) });
    expect(answer.import).toMatchObject({
      box: 'lab/imported',
      provider: 'libvirt',
      architecture: 'arm64',
      released: true,
    });
  });
});
