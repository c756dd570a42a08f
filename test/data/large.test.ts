import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repeated, rssMiB } from '../helpers/large-files';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/cli';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import { rawPut } from '../helpers/upload';

const MiB = 1024 * 1024;
const SIZE = 256 * MiB;
/** Far below SIZE: a command that held the blob in memory would pass it (an idle CLI is ~60 MiB). */
const FLAT_MIB = 160;

/** Runs a CLI command, sampling its memory; returns its result and peak. */
async function measured(args: string[]): Promise<CliResult & { peak: number }> {
  let peak = 0;
  let timer: NodeJS.Timeout | undefined;
  const r = await runCli(args, {}, (pid) => {
    timer = setInterval(() => {
      peak = Math.max(peak, rssMiB(pid));
    }, 20);
  });
  clearInterval(timer);
  return { ...r, peak };
}

let d: TestDaemon;
let tmp: string;
let sha: string;

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'boxyard-data-large-'));
  d = await startTestDaemon();
  const http = d.http.withToken(d.adminToken);
  await http.post('/api/v1/boxes', { box: { username: 'admin', name: 'big', is_private: false } });
  await http.post('/api/v1/box/admin/big/versions', { version: { version: '1.0.0' } });
  await http.post('/api/v1/box/admin/big/version/1.0.0/providers', { provider: { name: 'virtualbox' } });
  const upload = (await http.get('/api/v1/box/admin/big/version/1.0.0/provider/virtualbox/upload')).json.upload_path;
  const block = randomBytes(MiB);
  const h = createHash('sha256');
  for (let i = 0; i < SIZE / MiB; i++) h.update(block);
  sha = h.digest('hex');
  expect((await rawPut(upload, repeated(block, SIZE), { 'content-length': String(SIZE) })).status).toBe(200);
});
afterAll(async () => {
  await d?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

describe('a 256 MiB blob', () => {
  it('is checked, backed up and restored with flat memory (streamed 1 MiB at a time)', async () => {
    const c = await measured(['check', '--data', d.dataDir]);
    expect(c.code, c.stdout + c.stderr).toBe(0);
    expect(c.stdout).toContain(`checked 1 blob (${SIZE} bytes, 256.0 MiB) and 1 row naming blobs: no problems`);

    const b = await measured(['backup', '--data', d.dataDir, join(tmp, 'backup')]);
    expect(b.code, b.stderr).toBe(0);
    expect(b.stdout).toContain('the database and 1 blob,');

    const r = await measured(['restore', '--data', join(tmp, 'restored'), join(tmp, 'backup')]);
    expect(r.code, r.stderr).toBe(0);
    const again = await runCli(['check', '--data', join(tmp, 'restored')]);
    expect(again.code, again.stdout).toBe(0);
    expect(again.stdout).toContain(`checked 1 blob (${SIZE} bytes`);

    expect(
      { check: c.peak < FLAT_MIB, backup: b.peak < FLAT_MIB, restore: r.peak < FLAT_MIB },
      `peaks (MiB): check ${c.peak}, backup ${b.peak}, restore ${r.peak}`,
    ).toEqual({ check: true, backup: true, restore: true });
    const manifest = JSON.parse(readFileSync(join(tmp, 'backup', 'boxyard-backup.json'), 'utf8'));
    expect(manifest.files).toContainEqual({ path: `blobs/sha256/${sha.slice(0, 2)}/${sha}`, sha256: sha, size: SIZE });
  });
});
