import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import { serveJson, sha256, staticServer, waitForJob, type Handler, type StaticServer } from '../helpers/mirror';

/**
 * A job downloads up to its mirror's `parallel` files at once, and all jobs together
 * up to the daemon's `BOXYARD_MIRROR_DOWNLOADS`. The upstream holds each download until as many
 * as expected are under way (or a bounded wait passes), and records the most it saw at once.
 */
describe('parallel mirror downloads', () => {
  let d: TestDaemon | undefined;
  let s: StaticServer | undefined;
  afterEach(async () => {
    await d?.stop();
    await s?.close();
  });

  /** Files that answer once `expect` downloads are in flight (at most 2 s later), counting the most at once. */
  function gatedFiles(
    server: StaticServer,
    expectAtOnce: number,
    count: number,
    prefix: string,
    stats = { active: 0, most: 0, waiting: [] as Array<() => void> },
  ) {
    const files = Array.from({ length: count }, () => randomBytes(64 * 1024 + Math.floor(Math.random() * 1024)));
    const { waiting } = stats;
    const release = () => {
      for (let next = waiting.shift(); next; next = waiting.shift()) next();
    };
    files.forEach((body, i) => {
      const h: Handler = (req, res) => {
        res.setHeader('content-length', String(body.length));
        if (req.method === 'HEAD') return void res.end();
        stats.active++;
        stats.most = Math.max(stats.most, stats.active);
        const send = () =>
          res.end(body, () => {
            stats.active--;
          });
        waiting.push(send);
        if (stats.active >= expectAtOnce) release();
        else setTimeout(release, 2000).unref();
      };
      server.route(`/${prefix}/${i}.box`, h);
    });
    return { files, stats };
  }

  const catalog = (name: string, prefix: string, n: number) =>
    serveJson({
      name,
      versions: Array.from({ length: n }, (_v, i) => ({
        version: `1.0.${i}`,
        providers: [{ name: 'virtualbox', url: `/${prefix}/${i}.box` }],
      })),
    });

  it('a job fetches `parallel` files at once, and every file arrives whole', async () => {
    s = await staticServer();
    const { files, stats } = gatedFiles(s, 3, 7, 'p');
    s.route('/acme/many', catalog('acme/many', 'p', 7));
    d = await startTestDaemon();
    const admin = d.http.withToken(d.adminToken);
    const r = await admin.post('/api/boxyard/mirrors', {
      mirror: { upstream: { url: s.url }, source: 'acme/many', parallel: 3 },
    });
    expect(r.status, r.text).toBe(201);
    expect(r.json.mirror.parallel).toBe(3);
    const job = await waitForJob(admin, r.json.job.id);
    expect(job).toMatchObject({
      state: 'done',
      files_done: 7,
      files_total: 7,
      bytes_done: files.reduce((n, f) => n + f.length, 0),
    });
    expect(stats.most).toBe(3);
    const versions = (await d.http.get('/acme/many')).json.versions as Array<{
      version: string;
      providers: Array<{ checksum: string }>;
    }>;
    for (const [i, f] of files.entries())
      expect(versions.find((v) => v.version === `1.0.${i}`)?.providers[0].checksum).toBe(sha256(f));
  });

  it('the daemon bounds downloads across jobs (BOXYARD_MIRROR_DOWNLOADS)', async () => {
    s = await staticServer();
    const a = gatedFiles(s, 2, 4, 'a');
    gatedFiles(s, 2, 4, 'b', a.stats);
    s.route('/acme/a', catalog('acme/a', 'a', 4));
    s.route('/acme/b', catalog('acme/b', 'b', 4));
    d = await startTestDaemon({ config: { mirrorDownloads: 2 } });
    const admin = d.http.withToken(d.adminToken);
    const jobs = [];
    for (const source of ['acme/a', 'acme/b']) {
      const r = await admin.post('/api/boxyard/mirrors', { mirror: { upstream: { url: s.url }, source, parallel: 4 } });
      expect(r.status, r.text).toBe(201);
      jobs.push(r.json.job.id as string);
    }
    for (const id of jobs) expect((await waitForJob(admin, id)).state).toBe('done');
    // Both jobs' files are counted together: never more than 2 at once in all.
    expect(a.stats.most).toBe(2);
  });

  it('one file failing fails the job: the files under way stop, nothing is published and no staged bytes are left', async () => {
    s = await staticServer();
    const { files } = gatedFiles(s, 3, 5, 'f');
    s.route(
      '/acme/broken',
      serveJson({
        name: 'acme/broken',
        versions: files.map((_f, i) => ({
          version: `1.0.${i}`,
          providers: [
            {
              name: 'virtualbox',
              url: `/f/${i}.box`,
              checksum_type: 'sha256',
              checksum: i === 1 ? '0'.repeat(64) : sha256(files[i]),
            },
          ],
        })),
      }),
    );
    d = await startTestDaemon();
    const admin = d.http.withToken(d.adminToken);
    const r = await admin.post('/api/boxyard/mirrors', {
      mirror: { upstream: { url: s.url }, source: 'acme/broken', parallel: 3 },
    });
    const job = await waitForJob(admin, r.json.job.id);
    expect(job).toMatchObject({
      state: 'failed',
      error_code: 'upstream_failed',
      message: expect.stringMatching(/Checksum mismatch for .*\/f\/1\.box/),
    });
    expect((await admin.get('/api/v1/box/acme/broken')).status).toBe(404);
    if (!process.env.BOXYARD_TEST_S3_URL) expect(readdirSync(join(d.dataDir, 'uploads'))).toEqual([]);
  });
});
