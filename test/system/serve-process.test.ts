/**
 * `boxyard serve` is one process, which sets glibc's malloc settings itself (daemon/src/lib/
 * malloc-tuning.ts): once a 16 MiB block was freed (scrypt's, at every password check), a 1 MiB
 * block still comes from mmap and goes back to the system when freed. It also limits how far V8's
 * old generation grows between full collections (daemon/src/lib/heap-growth.ts), and listens
 * with a long accept queue (daemon/src/main.ts).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnDaemon, type SpawnedDaemon } from '../helpers/spawn-daemon';

const PROBE = join(import.meta.dirname, '..', 'fixtures', 'malloc-probe.ts');
const probe = (mode: 'tuned' | 'untuned') =>
  JSON.parse(execFileSync(process.execPath, ['--import', 'tsx', PROBE, mode], { encoding: 'utf8' })) as {
    mapped: number;
  };
const HEAP_PROBE = join(import.meta.dirname, '..', 'fixtures', 'heap-growth-probe.ts');
const heapProbe = (mode: 'tuned' | 'untuned') =>
  JSON.parse(
    execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', HEAP_PROBE, mode], { encoding: 'utf8' }),
  ) as { peak: number; live: number };

describe.runIf(process.platform === 'linux')('the process of `boxyard serve`', () => {
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

  it('lets the old generation grow 30% past what a full collection keeps, not up to four times', () => {
    const untuned = heapProbe('untuned');
    const tuned = heapProbe('tuned');
    // The same live data at the end (~20 MiB), whichever the setting.
    expect(Math.abs(tuned.live - untuned.live)).toBeLessThan(8 * 1024 * 1024);
    // Untuned the old space reached ~260 MB under promoted garbage; tuned ~100 MB.
    expect(tuned.peak).toBeLessThan(untuned.peak * 0.6);
  });

  it('runs as one process that sets them, says so, and serves', async () => {
    dir = mkdtempSync(join(tmpdir(), 'boxyard-malloc-'));
    d = await spawnDaemon({ dataDir: dir, env: { BOXYARD_LOG_LEVEL: 'info' } });
    const pid = d.pid;
    expect(readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim()).toBe('');
    const res = await fetch(`${d.url}/healthz`);
    expect(res.status).toBe(200);
    expect(d.output()).toMatch(/"malloc":"glibc [\d.]+: mmap threshold 128 KiB, trim threshold 4 MiB"/);
    expect(d.output()).toMatch(/"heap":"the old generation grows 30% past what a full collection keeps"/);
  });

  it('listens with an accept queue of 4,096 connections (as far as net.core.somaxconn allows)', async () => {
    dir = mkdtempSync(join(tmpdir(), 'boxyard-backlog-'));
    d = await spawnDaemon({ dataDir: dir });
    const port = new URL(d.url).port;
    // For a listening socket, ss shows the queue's length in Send-Q.
    const line = execFileSync('ss', ['-Hltn', `sport = :${port}`], { encoding: 'utf8' }).trim();
    const somaxconn = Number(readFileSync('/proc/sys/net/core/somaxconn', 'utf8'));
    expect(line.split(/\s+/)[2]).toBe(String(Math.min(4096, somaxconn)));
  });
});
