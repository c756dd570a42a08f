import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repeated, rssMiB } from '../helpers/large-files';
import { afterAll, describe, expect, it } from 'vitest';
import { ADMIN } from '../helpers/daemon';
import { HttpClient } from '../helpers/http';
import { rawPut } from '../helpers/upload';
import { spawnDaemon, type SpawnedDaemon } from '../helpers/spawn-daemon';

const MiB = 1024 * 1024;
const SIZE = 1024 * MiB;
const dataDir = mkdtempSync(join(tmpdir(), 'boxyard-large-'));
let daemon: SpawnedDaemon | undefined;
afterAll(async () => {
  await daemon?.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

/** Samples the daemon's memory while `work` runs; returns the peak. */
async function peakRss(pid: number, work: () => Promise<void>): Promise<number> {
  let peak = rssMiB(pid);
  const timer = setInterval(() => {
    peak = Math.max(peak, rssMiB(pid));
  }, 50);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return peak;
}

// Linux only: the daemon's memory is read from /proc/PID/status (VmRSS); CI runs on Linux, so it always runs there.
describe.runIf(process.platform === 'linux')('a 1 GiB box file', () => {
  it('uploads and downloads with flat daemon memory', async () => {
    daemon = await spawnDaemon({ dataDir });
    const login = await new HttpClient(daemon.url).post('/api/v1/authenticate', {
      user: { login: ADMIN.username, password: ADMIN.password },
    });
    const admin = new HttpClient(daemon.url, login.json.token);
    await admin.post('/api/v1/boxes', { box: { username: 'admin', name: 'big', is_private: false } });
    await admin.post('/api/v1/box/admin/big/versions', { version: { version: '1.0.0' } });
    await admin.post('/api/v1/box/admin/big/version/1.0.0/providers', { provider: { name: 'virtualbox' } });
    const upload = (await admin.get('/api/v1/box/admin/big/version/1.0.0/provider/virtualbox/upload')).json.upload_path;

    const block = randomBytes(MiB);
    const expected = createHash('sha256');
    for (let i = 0; i < SIZE / MiB; i++) expected.update(block);
    const sha = expected.digest('hex');
    const pid = daemon.pid;
    const baseline = rssMiB(pid);

    let status = 0;
    const upPeak = await peakRss(pid, async () => {
      status = (await rawPut(upload, repeated(block, SIZE), { 'content-length': String(SIZE) })).status;
    });
    expect(status).toBe(200);
    const provider = await admin.get('/api/v1/box/admin/big/version/1.0.0/provider/virtualbox');
    expect(provider.json.checksum).toBe(sha);
    // Released: the download below sends no token.
    expect((await admin.put('/api/v1/box/admin/big/version/1.0.0/release')).status).toBe(200);

    const got = createHash('sha256');
    let bytes = 0;
    const downPeak = await peakRss(
      pid,
      () =>
        new Promise<void>((resolve, reject) => {
          request(provider.json.download_url, (res) => {
            res.on('data', (c: Buffer) => {
              got.update(c);
              bytes += c.length;
            });
            res.on('end', () => resolve());
            res.on('error', reject);
          })
            .on('error', reject)
            .end();
        }),
    );
    expect(bytes).toBe(SIZE);
    expect(got.digest('hex')).toBe(sha);
    // Streaming: the daemon never holds the file. 1 GiB buffered would show as ≥ 1024 MiB.
    expect(upPeak - baseline).toBeLessThan(150);
    expect(downPeak - baseline).toBeLessThan(150);
  }, 180_000);
});
