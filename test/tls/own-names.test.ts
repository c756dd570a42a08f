import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnDaemon, type SpawnedDaemon } from '../helpers/spawn-daemon';

/*
 * The daemon's names on a machine whose host name is a full domain name (`lab.example.com`, set in
 * a UTS namespace of the daemon's own), listening on every interface with --tls auto: every name
 * its certificate carries is one its Host guard answers (http/own-names.ts owns both). Only
 * 127.0.0.1 is talked to: curl resolves each name there.
 */
const run = promisify(execFile);
const canSetHostname = spawnSync('unshare', ['-ru', 'hostname', 'lab.example.com']).status === 0;

async function curl(name: string, port: number, caFile: string): Promise<{ code: number; out: string }> {
  return run('curl', [
    '-sS',
    '--max-time',
    '20',
    '--resolve',
    `${name}:${port}:127.0.0.1`,
    '--cacert',
    caFile,
    `https://${name}:${port}/healthz`,
  ]).then(
    (r) => ({ code: 0, out: r.stdout }),
    (err: { code: number; stderr: string }) => ({ code: err.code, out: err.stderr }),
  );
}

describe.runIf(canSetHostname)('--tls auto on a machine named lab.example.com, listening on every interface', () => {
  let dataDir: string;
  let d: SpawnedDaemon;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'boxyard-own-names-'));
    d = await spawnDaemon({
      dataDir,
      prefix: ['unshare', '-ru', 'sh', '-c', 'hostname lab.example.com && exec "$0" "$@"'],
      args: ['--tls', 'auto', '--host', '0.0.0.0'],
    });
  });
  afterAll(async () => {
    await d?.kill();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers https://lab.local and https://lab.example.com (not a 421), and names no lab.example.com.local', async () => {
    const caFile = join(dataDir, 'tls', 'ca.pem');
    for (const name of ['lab.local', 'lab.example.com', 'localhost', '127.0.0.1']) {
      const r = await curl(name, d.port, caFile);
      expect(r, name).toMatchObject({ code: 0, out: expect.stringContaining('"status":"ok"') });
    }
    // Not in the certificate (60: no name matches), as the guard does not answer it either.
    expect((await curl('lab.example.com.local', d.port, caFile)).code).toBe(60);
  });
});
