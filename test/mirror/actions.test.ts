import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExportLine } from '../../daemon/src/contract/wire/mirror-actions';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient } from '../helpers/http';
import { publishHosted, sha256, staticServer, waitForJob } from '../helpers/mirror';
import { rawGet } from '../helpers/upload';

/** POSTs an export and reads its streamed lines to the end. */
async function exportTo(
  d: TestDaemon,
  token: string,
  body: unknown,
): Promise<{ status: number; lines: ExportLine[]; json?: { code?: string } }> {
  const res = await fetch(`${d.url}/api/boxyard/export`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) return { status: res.status, lines: [], json: JSON.parse(text) };
  expect(res.headers.get('content-type')).toMatch(/application\/x-ndjson/);
  return {
    status: res.status,
    lines: text
      .trim()
      .split('\n')
      .map((l) => ExportLine.parse(JSON.parse(l))),
  };
}

describe('the mirroring API actions', () => {
  let a: TestDaemon; // the upstream
  let b: TestDaemon; // the daemon under test
  let aHttp: HttpClient;
  let bHttp: HttpClient;
  const file = randomBytes(300_000);
  const tmp = mkdtempSync(join(tmpdir(), 'boxyard-mirror-actions-'));

  beforeAll(async () => {
    [a, b] = await Promise.all([startTestDaemon(), startTestDaemon()]);
    aHttp = a.http.withToken(a.adminToken);
    bHttp = b.http.withToken(b.adminToken);
    await aHttp.post('/api/boxyard/organizations', { organization: { name: 'lab' } });
    await publishHosted(aHttp, 'lab', 'base', '1.0.0', file);
  });
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
  });

  const upstream = async (body: Record<string, unknown>): Promise<string> => {
    const r = await bHttp.post('/api/boxyard/upstreams', { upstream: body });
    expect(r.status, r.text).toBe(201);
    return r.json.upstream.id;
  };
  const test = (id: string, http = bHttp) => http.post(`/api/boxyard/upstreams/${id}/test`, {});

  describe('POST /upstreams/:id/test', () => {
    it('says ok for a reachable upstream, with and without its token, and never shows the token', async () => {
      const plain = await test(await upstream({ name: 'a-plain', url: a.url }));
      expect(plain.status, plain.text).toBe(200);
      expect(plain.json.test).toMatchObject({
        ok: true,
        code: null,
        message: expect.stringMatching(/search answered/),
      });
      const withToken = await test(await upstream({ name: 'a-token', url: a.url, token: a.adminToken }));
      expect(withToken.json.test).toMatchObject({ ok: true, message: expect.stringMatching(/accepted the token/) });
      expect(withToken.text).not.toContain(a.adminToken);
    });

    it('answers the failure with its code: a wrong token, a host that does not answer, a catalog that is not one', async () => {
      const bad = await test(await upstream({ name: 'a-bad-token', url: a.url, token: 'not-a-token' }));
      expect(bad.status).toBe(200);
      expect(bad.json.test).toMatchObject({
        ok: false,
        code: 'upstream_failed',
        message: expect.stringMatching(/401.*refuses the token/),
      });
      const gone = await staticServer();
      const goneUrl = gone.url;
      await gone.close();
      const goneId = await upstream({ name: 'gone', url: goneUrl });
      const down = await test(goneId);
      const where = new URL(goneUrl).host;
      // In the network's words, and kept as the upstream's health until something succeeds there.
      const refused = `Cannot reach upstream "gone": nothing answers at ${where} (the connection was refused) (${goneUrl}/api/v1/search).`;
      expect(down.json.test).toMatchObject({ ok: false, code: 'upstream_failed', message: refused });
      const health = (await bHttp.get(`/api/boxyard/upstreams/${goneId}`)).json.upstream;
      expect(health).toMatchObject({ failures: 1, last_error: refused });
      // Node's fetch refuses port 1 (a blocked port) before connecting: said as what to do, never "bad port".
      const blocked = await test(await upstream({ name: 'port-one', url: 'http://127.0.0.1:1' }));
      expect(blocked.json.test.message).toBe(
        'Cannot reach upstream "port-one": Boxyard does not connect to port 1 (127.0.0.1:1): it belongs to another ' +
          'protocol, so serve the upstream on another port (http://127.0.0.1:1/api/v1/search).',
      );
      const junk = await staticServer();
      junk.route('/box.json', (_req, res) => res.end('not json'));
      try {
        const id = await upstream({ name: 'junk', url: `${junk.url}/box.json` });
        const r = await test(id);
        expect(r.json.test).toMatchObject({
          ok: false,
          code: 'upstream_failed',
          message: expect.stringMatching(/invalid JSON/),
        });
        // Not the breaker's failure (the host answered), but the upstream's health says it, until a test succeeds.
        const shown = (await bHttp.get(`/api/boxyard/upstreams/${id}`)).json.upstream;
        expect(shown).toMatchObject({ failures: 0, last_error: r.json.test.message });
        junk.route('/box.json', (_req, res) => res.end(JSON.stringify({ name: 'lab/base', versions: [] })));
        expect((await test(id)).json.test.ok).toBe(true);
        expect((await bHttp.get(`/api/boxyard/upstreams/${id}`)).json.upstream.last_error).toBeNull();
      } finally {
        await junk.close();
      }
    });

    it('is refused offline with the offline code, and asks nothing; 404 for an upstream the caller may not see', async () => {
      const seen = await staticServer();
      try {
        const id = await upstream({ name: 'counted', url: seen.url });
        expect((await bHttp.put('/api/boxyard/settings', { settings: { offline: true } })).status).toBe(200);
        const r = await test(id);
        // The code says why (its status is the dialect's: 404, as for the cache's offline misses).
        expect(r.status).toBeGreaterThanOrEqual(400);
        expect(r.json.code).toBe('offline');
        expect(seen.connections()).toBe(0);
        const other = await b.user('tester');
        expect((await test(id, other.http)).status).toBe(404);
      } finally {
        await bHttp.put('/api/boxyard/settings', { settings: { offline: false } });
        await seen.close();
      }
    });
  });

  describe('the cache: GET /cache/size and DELETE /cache', () => {
    it('counts what the cache stored and purges it; garbage collection then removes the file', async () => {
      const id = await upstream({ name: 'pull', url: a.url });
      expect((await bHttp.put('/api/boxyard/settings', { settings: { pull_through_upstream_id: id } })).status).toBe(
        200,
      );
      const catalog = await b.http.get('/lab/base');
      expect(catalog.status, catalog.text).toBe(200);
      expect(sha256((await rawGet(catalog.json.versions[0].providers[0].url)).body)).toBe(sha256(file));
      await expect
        .poll(async () => (await bHttp.get('/api/boxyard/cache/size')).json.cache, { timeout: 10_000 })
        .toEqual({ boxes: 1, files: 1, bytes: file.length });

      const user = await b.user('viewer');
      expect((await user.http.get('/api/boxyard/cache/size')).status).toBe(200);
      const refused = await user.http.delete('/api/boxyard/cache');
      expect(refused.status).toBe(403);
      expect(refused.json.code).toBe('forbidden');
      const missing = await bHttp.delete('/api/boxyard/cache?box=lab/nothing');
      expect(missing.status).toBe(404);
      expect(missing.json.code).toBe('not_found');

      const purged = await bHttp.delete('/api/boxyard/cache');
      expect(purged.status, purged.text).toBe(200);
      expect(purged.json.purged).toEqual({ boxes: ['lab/base'], bytes: file.length });
      expect((await bHttp.get('/api/boxyard/cache/size')).json.cache).toEqual({ boxes: 0, files: 0, bytes: 0 });
      expect((await bHttp.get('/api/boxyard/cache')).json.boxes).toEqual([]);
      expect((await bHttp.get('/api/v1/box/lab/base')).status).toBe(404);
      expect(await b.deps.blobStore.stat(sha256(file))).toEqual({ sha256: sha256(file), size: file.length });
      const collected = await b.deps.blobCollector.run({ graceMs: 0 });
      expect(collected.blobs).toEqual([sha256(file)]);
      expect(await b.deps.blobStore.stat(sha256(file))).toBeNull();

      // The next use fetches it again.
      const again = await b.http.get('/lab/base');
      expect(again.status).toBe(200);
      expect(sha256((await rawGet(again.json.versions[0].providers[0].url)).body)).toBe(sha256(file));
      await bHttp.put('/api/boxyard/settings', { settings: { pull_through_upstream_id: null } });
    });
  });

  describe('POST /export and POST /import-folder', () => {
    const out = join(tmp, 'export');

    it('exports boxes into a folder on the daemon, streaming progress, and resumes into the same folder', async () => {
      const r = await exportTo(a, a.adminToken, { export: { boxes: ['lab/base'], path: out } });
      expect(r.status).toBe(200);
      expect(r.lines.at(-1)).toEqual({ type: 'done', path: out, files: 1, bytes: file.length });
      expect(r.lines.filter((l) => l.type === 'progress').at(-1)).toMatchObject({
        bytes_done: file.length,
        bytes_total: file.length,
        files_done: 1,
        files_total: 1,
      });
      const manifest = JSON.parse(readFileSync(join(out, 'boxyard-export.json'), 'utf8'));
      expect(manifest).toMatchObject({
        format: 'boxyard-export',
        boxes: [{ name: 'lab/base', catalog: 'lab/base/metadata.json' }],
        files: [{ path: 'lab/base/1.0.0/virtualbox-amd64.box', size: file.length, sha256: sha256(file) }],
      });
      expect(sha256(readFileSync(join(out, 'lab/base/1.0.0/virtualbox-amd64.box')))).toBe(sha256(file));
      expect(
        JSON.parse(readFileSync(join(out, 'lab/base/metadata.json'), 'utf8')).versions[0].providers[0],
      ).toMatchObject({ url: '1.0.0/virtualbox-amd64.box', checksum: sha256(file) });
      expect(
        (await exportTo(a, a.adminToken, { export: { boxes: ['lab/base'], path: out } })).lines.at(-1),
      ).toMatchObject({ type: 'done' });
    });

    it('refuses before writing: other users, a relative path, a folder holding other files, a box with nothing to export', async () => {
      const user = await a.user('exporter');
      expect(
        (await exportTo(a, user.token, { export: { boxes: ['lab/base'], path: join(tmp, 'x') } })).json?.code,
      ).toBe('forbidden');
      expect(
        (await exportTo(a, a.adminToken, { export: { boxes: ['lab/base'], path: 'relative/dir' } })).json?.code,
      ).toBe('validation');
      const busy = join(tmp, 'busy');
      mkdirSync(busy);
      writeFileSync(join(busy, 'notes.txt'), 'mine');
      const r = await exportTo(a, a.adminToken, { export: { boxes: ['lab/base'], path: busy } });
      expect(r.json?.code).toBe('conflict');
      expect(existsSync(join(busy, 'lab'))).toBe(false);
      await aHttp.post('/api/v1/boxes', { box: { username: 'lab', name: 'empty' } });
      expect(
        (await exportTo(a, a.adminToken, { export: { boxes: ['lab/empty'], path: join(tmp, 'y') } })).json?.code,
      ).toBe('validation');
      expect(
        (await exportTo(a, a.adminToken, { export: { boxes: ['../etc'], path: join(tmp, 'z') } })).json?.code,
      ).toBe('validation');
    });

    it('imports an export folder as mirror jobs, and a second import runs the same mirror again', async () => {
      const other = await b.user('importer');
      expect((await other.http.post('/api/boxyard/import-folder', { import: { path: out } })).json.code).toBe(
        'forbidden',
      );
      expect((await bHttp.post('/api/boxyard/import-folder', { import: { path: tmp } })).json.code).toBe('validation');
      const r = await bHttp.post('/api/boxyard/import-folder', { import: { path: out } });
      expect(r.status, r.text).toBe(201);
      expect(r.json.mirrors).toEqual([
        expect.objectContaining({ source: 'lab/base', job: expect.objectContaining({ state: expect.any(String) }) }),
      ]);
      const job = await waitForJob(bHttp, r.json.mirrors[0].job.id);
      expect(job.state, job.message ?? '').toBe('done');
      const provider = await bHttp.get('/api/v1/box/lab/base/version/1.0.0/provider/virtualbox/amd64');
      expect(provider.json).toMatchObject({ hosted: true, checksum: sha256(file) });
      const again = await bHttp.post('/api/boxyard/import-folder', { import: { path: out } });
      expect(again.json.mirrors[0].id).toBe(r.json.mirrors[0].id);
      expect((await waitForJob(bHttp, again.json.mirrors[0].job.id)).state).toBe('done');
    });
  });
});
