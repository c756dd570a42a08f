/**
 * `boxyard serve` is one process, which sets glibc's malloc settings itself (daemon/src/lib/
 * malloc-tuning.ts): once a 16 MiB block was freed (scrypt's, at every password check), a 1 MiB
 * block still comes from mmap and goes back to the system when freed.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnDaemon, type SpawnedDaemon } from './helpers/spawn-daemon';

const PROBE = join(import.meta.dirname, 'fixtures', 'malloc-probe.ts');
const probe = (mode: 'tuned' | 'untuned') =>
  JSON.parse(execFileSync(process.execPath, ['--import', 'tsx', PROBE, mode], { encoding: 'utf8' })) as { mapped: number };

describe.runIf(process.platform === 'linux')('glibc malloc settings of `boxyard serve`', () => {
  let dir = '';
  let d: SpawnedDaemon | undefined;
  afterEach(async () => {
    await d?.kill('SIGKILL');
    d = undefined;
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('keeps a fixed mmap threshold: a freed 16 MiB block does not move 1 MiB blocks onto the heap', () => {
    expect(probe('untuned').mapped).toBe(0);
    expect(probe('tuned').mapped).toBeGreaterThanOrEqual(1024 * 1024);
  });

  it('runs as one process that sets them, says so, and serves', async () => {
    dir = mkdtempSync(join(tmpdir(), 'boxyard-malloc-'));
    d = await spawnDaemon({ dataDir: dir, env: { BOXYARD_LOG_LEVEL: 'info' } });
    const pid = d.child.pid!;
    expect(readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim()).toBe('');
    const res = await fetch(`${d.url}/healthz`);
    expect(res.status).toBe(200);
    expect(d.output()).toMatch(/"malloc":"glibc [\d.]+: mmap threshold 128 KiB, trim threshold 4 MiB"/);
  });
});
