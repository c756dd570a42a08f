import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient } from '../helpers/http';
import { mirrorOnce, sha256, waitForJob } from '../helpers/mirror';
import { rawGet } from '../helpers/upload';

/** Upstreams on disk: a folder written by `boxyard export`, and a lone catalog file. Work offline too. */
describe('folder and catalog-file upstreams', () => {
  let d: TestDaemon;
  let http: HttpClient;
  let dir: string;
  const file = randomBytes(70_000);

  const writeExport = (root: string, catalog: unknown) => {
    mkdirSync(join(root, 'acme', 'web', '1.0.0'), { recursive: true });
    writeFileSync(join(root, 'acme', 'web', '1.0.0', 'virtualbox-amd64.box'), file);
    writeFileSync(join(root, 'acme', 'web', 'metadata.json'), JSON.stringify(catalog));
    writeFileSync(
      join(root, 'boxyard-export.json'),
      JSON.stringify({
        format: 'boxyard-export',
        format_version: 1,
        created_at: new Date().toISOString(),
        boxes: [{ name: 'acme/web', catalog: 'acme/web/metadata.json' }],
        files: [{ path: 'acme/web/1.0.0/virtualbox-amd64.box', size: file.length, sha256: sha256(file) }],
      }),
    );
  };
  const catalog = (url: string) => ({
    name: 'acme/web',
    short_description: 'Web',
    versions: [
      {
        version: '1.0.0',
        status: 'active',
        description_markdown: 'first',
        providers: [
          {
            name: 'virtualbox',
            url,
            checksum: sha256(file),
            checksum_type: 'sha256',
            architecture: 'amd64',
            default_architecture: true,
          },
        ],
      },
    ],
  });

  beforeAll(async () => {
    d = await startTestDaemon();
    http = d.http.withToken(d.adminToken);
    dir = mkdtempSync(join(tmpdir(), 'boxyard-folder-'));
    // Offline: a folder is no connection, so it still works.
    await http.put('/api/boxyard/settings', { settings: { offline: true } });
  });
  afterAll(async () => {
    await d?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('mirrors from an export folder (by path) with every checksum kept, while offline', async () => {
    // A network job waiting for offline mode to end does not hold up a folder job queued after it.
    const waiting = await http.post('/api/boxyard/mirrors', {
      mirror: { upstream: { url: 'http://127.0.0.1:9' }, source: 'acme/net', target: 'net/box' },
    });
    expect(waiting.status, waiting.text).toBe(201);
    const root = join(dir, 'export');
    writeExport(root, catalog('1.0.0/virtualbox-amd64.box'));
    const { job } = await mirrorOnce(http, { upstream: { url: root }, source: 'acme/web', target: 'air/web' });
    expect(job.state, job.message ?? '').toBe('done');
    const doc = (await d.http.get('/air/web')).json;
    expect(doc.versions[0]).toMatchObject({ version: '1.0.0', description_markdown: 'first' });
    expect(doc.versions[0].providers[0]).toMatchObject({
      checksum: sha256(file),
      checksum_type: 'sha256',
      architecture: 'amd64',
    });
    expect(sha256((await rawGet(doc.versions[0].providers[0].url)).body)).toBe(sha256(file));
    const org = await mirrorOnce(http, {
      upstream: { url: pathToFileURL(root).toString() },
      source: 'acme',
      target: 'air2',
    });
    expect(org.job.published).toEqual([{ box: 'air2/web', versions: ['1.0.0'] }]);
    expect((await waitForJob(http, waiting.json.job.id, ['queued'])).message).toMatch(/offline/);
  });

  it('mirrors from a lone catalog file', async () => {
    const root = join(dir, 'single');
    writeExport(root, catalog('1.0.0/virtualbox-amd64.box'));
    const { job } = await mirrorOnce(http, {
      upstream: { url: pathToFileURL(join(root, 'acme', 'web', 'metadata.json')).toString() },
      source: 'acme/web',
      target: 'one/web',
    });
    expect(job.state, job.message ?? '').toBe('done');
  });

  it('never reads outside the folder, and a missing manifest says what the folder should be', async () => {
    const root = join(dir, 'escape');
    writeExport(root, catalog('../../../../../../etc/passwd'));
    const { job } = await mirrorOnce(http, { upstream: { url: root }, source: 'acme/web', target: 'esc/web' });
    expect(job).toMatchObject({ state: 'failed' });
    expect(job.message).toMatch(/outside its folder/);
    const bare = join(dir, 'bare');
    mkdirSync(bare);
    const r = await mirrorOnce(http, { upstream: { url: bare }, source: 'acme/web', target: 'esc/web' });
    expect(r.job.message).toMatch(/has no boxyard-export\.json; is it a folder written by boxyard export/);
    expect((await d.http.get('/esc/web')).status).toBe(404);
  });
});
