import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { ADMIN } from './helpers/daemon';
import { HttpClient } from './helpers/http';
import { rawGet, rawPut } from './helpers/upload';
import { spawnDaemon, type SpawnedDaemon } from './helpers/spawn-daemon';

const dataDir = mkdtempSync(join(tmpdir(), 'boxyard-crash-'));
let daemon: SpawnedDaemon | undefined;
afterAll(async () => {
  await daemon?.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

async function adminClient(url: string): Promise<HttpClient> {
  const r = await new HttpClient(url).post('/api/v1/authenticate', { user: { login: ADMIN.username, password: ADMIN.password } });
  expect(r.status, r.text).toBe(200);
  return new HttpClient(url, r.json.token);
}

/** Every file under blobs/sha256 (the visible, content-addressed store). */
function blobFiles(): string[] {
  const root = join(dataDir, 'blobs', 'sha256');
  if (!existsSync(root)) return [];
  return readdirSync(root).flatMap((fan) => readdirSync(join(root, fan)));
}

/** Starts a PUT announcing `size` bytes and streams random data slowly until the test kills the server. */
function endlessUpload(url: string, size: number): void {
  const body = new Readable({ read() { setTimeout(() => this.push(randomBytes(256 * 1024)), 5); } });
  const req = request(url, { method: 'PUT', headers: { 'content-length': String(size), 'content-type': 'application/octet-stream' } });
  req.on('error', () => { /* the server was killed: expected */ });
  body.pipe(req);
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
    expect((await admin.post('/api/v1/boxes', { box: { username: 'admin', name: 'crash', is_private: false } })).status).toBe(200);
    expect((await admin.post('/api/v1/box/admin/crash/versions', { version: { version: '1.0.0' } })).status).toBe(200);
    expect((await admin.post('/api/v1/box/admin/crash/version/1.0.0/providers', { provider: { name: 'virtualbox' } })).status).toBe(200);
    const uploadPath: string = (await admin.get('/api/v1/box/admin/crash/version/1.0.0/provider/virtualbox/upload')).json.upload_path;

    endlessUpload(uploadPath, 4 * 1024 * 1024 * 1024);
    const uploads = join(dataDir, 'uploads');
    await until(() => existsSync(uploads) && readdirSync(uploads).some((id) => {
      const f = join(uploads, id, 'data');
      return existsSync(f) && statSync(f).size > 2 * 1024 * 1024;
    }));
    await daemon.kill('SIGKILL');
    expect(readdirSync(uploads)).toHaveLength(1); // the partial file is there, but only in uploads/
    expect(blobFiles()).toEqual([]);

    daemon = await spawnDaemon({ dataDir });
    admin = await adminClient(daemon.url);
    expect(readdirSync(uploads)).toEqual([]); // collected at start
    expect(blobFiles()).toEqual([]);
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
    expect(blobFiles()).toEqual([sha]);
    const got = await rawGet(`${daemon.url}${download}`);
    expect(got.status).toBe(200);
    expect(got.body.equals(file)).toBe(true);
    expect((await admin.get('/admin/crash')).json.versions[0].providers[0]).toMatchObject({ checksum: sha, checksum_type: 'sha256' });
  });
});
