import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { ADMIN } from '../helpers/daemon';
import { HttpClient } from '../helpers/http';
import { rawGet, rawPut } from '../helpers/upload';
import { spawnDaemon, type SpawnedDaemon } from '../helpers/spawn-daemon';
import { stagedUploadsIn, storedBlobsIn, storesInBucket } from '../helpers/blobs';

const dataDir = mkdtempSync(join(tmpdir(), 'boxyard-crash-'));
let daemon: SpawnedDaemon | undefined;
afterAll(async () => {
  await daemon?.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

async function adminClient(url: string): Promise<HttpClient> {
  const r = await new HttpClient(url).post('/api/v1/authenticate', {
    user: { login: ADMIN.username, password: ADMIN.password },
  });
  expect(r.status, r.text).toBe(200);
  return new HttpClient(url, r.json.token);
}

/**
 * Starts a PUT announcing `size` bytes and streams random data slowly until the test kills the server; counts what it
 * sent.
 */
function endlessUpload(url: string, size: number): { sent: number } {
  const counter = { sent: 0 };
  const body = new Readable({
    read() {
      setTimeout(() => {
        counter.sent += 256 * 1024;
        this.push(randomBytes(256 * 1024));
      }, 5);
    },
  });
  const req = request(url, {
    method: 'PUT',
    headers: { 'content-length': String(size), 'content-type': 'application/octet-stream' },
  });
  req.on('error', () => {
    /* the server was killed: expected */
  });
  body.pipe(req);
  return counter;
}

async function until(check: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('a daemon killed in the middle of an upload', () => {
  it('shows no partial blob after a restart, and the upload can be retried', async () => {
    daemon = await spawnDaemon({ dataDir });
    let admin = await adminClient(daemon.url);
    expect(
      (await admin.post('/api/v1/boxes', { box: { username: 'admin', name: 'crash', is_private: false } })).status,
    ).toBe(200);
    expect((await admin.post('/api/v1/box/admin/crash/versions', { version: { version: '1.0.0' } })).status).toBe(200);
    expect(
      (await admin.post('/api/v1/box/admin/crash/version/1.0.0/providers', { provider: { name: 'virtualbox' } }))
        .status,
    ).toBe(200);
    const uploadPath: string = (await admin.get('/api/v1/box/admin/crash/version/1.0.0/provider/virtualbox/upload'))
      .json.upload_path;

    // Past the first 8 MiB part an S3 store sends; a data folder has the bytes in uploads/ by then.
    const upload = endlessUpload(uploadPath, 4 * 1024 * 1024 * 1024);
    await until(() => upload.sent > 12 * 1024 * 1024);
    await daemon.kill('SIGKILL');
    // The partial bytes are staged only: in uploads/, or as parts of an open multipart upload,
    // which is no object at all (the sweeper aborts it a day later).
    expect(await stagedUploadsIn(dataDir)).toHaveLength((await storesInBucket(dataDir)) ? 0 : 1);
    expect(await storedBlobsIn(dataDir)).toEqual([]);

    daemon = await spawnDaemon({ dataDir });
    admin = await adminClient(daemon.url);
    expect(await stagedUploadsIn(dataDir)).toEqual([]); // collected at start
    expect(await storedBlobsIn(dataDir)).toEqual([]);
    const provider = await admin.get('/api/v1/box/admin/crash/version/1.0.0/provider/virtualbox');
    expect(provider.status).toBe(200);
    expect(provider.json.checksum).toBeNull();
    const download = new URL(provider.json.download_url).pathname;
    expect((await admin.get(download)).status).toBe(404);
    const release = await admin.put('/api/v1/box/admin/crash/version/1.0.0/release');
    expect(release.status).toBe(422);
    expect((await admin.get('/admin/crash')).json.versions).toEqual([]);

    // The interrupted URL was not used up: retrying it (what a client does) works.
    const file = randomBytes(3 * 1024 * 1024);
    expect((await rawPut(uploadPath.replace(/^http:\/\/127\.0\.0\.1:\d+/, daemon.url), file)).status).toBe(200);
    expect((await admin.put('/api/v1/box/admin/crash/version/1.0.0/release')).status).toBe(200);
    const sha = createHash('sha256').update(file).digest('hex');
    expect(await storedBlobsIn(dataDir)).toEqual([sha]);
    const got = await rawGet(`${daemon.url}${download}`);
    expect(got.status).toBe(200);
    expect(got.body.equals(file)).toBe(true);
    expect((await admin.get('/admin/crash')).json.versions[0].providers[0]).toMatchObject({
      checksum: sha,
      checksum_type: 'sha256',
    });
  });
});
