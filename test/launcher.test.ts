/**
 * bin/boxyard.mjs on Linux: `serve` runs the daemon as a child with glibc's malloc settings
 * (bin/malloc-env.mjs, read only at process start), passes signals on and returns its exit
 * status, and the daemon never outlives the launcher, even one killed with SIGKILL.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MALLOC_ENV } from '../bin/malloc-env.mjs';
import { spawnDaemon, type SpawnedDaemon } from './helpers/spawn-daemon';

const children = (pid: number) =>
  readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
const environ = (pid: number) => readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
const alive = (pid: number) => { try { process.kill(pid, 0); return true; } catch { return false; } };

async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 300 && alive(pid); i++) await new Promise((r) => setTimeout(r, 50));
  return !alive(pid);
}

// The launcher exists for glibc only: elsewhere bin/boxyard.mjs runs the daemon in its own process.
describe.runIf(process.platform === 'linux')('the launcher of `boxyard serve`', () => {
  let dir = '';
  let d: SpawnedDaemon | undefined;
  const start = async () => {
    dir = mkdtempSync(join(tmpdir(), 'boxyard-launcher-'));
    d = await spawnDaemon({ dataDir: dir, launcher: true, env: { BOXYARD_LOG_LEVEL: 'info' } });
    const kids = children(d.child.pid!);
    expect(kids).toHaveLength(1);
    return { launcher: d.child.pid!, daemon: kids[0] };
  };
  afterEach(async () => {
    await d?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs the daemon as its child with the malloc settings, and it serves', async () => {
    const { launcher, daemon } = await start();
    for (const [k, v] of Object.entries(MALLOC_ENV)) {
      expect(environ(daemon)).toContain(`${k}=${v}`);
      expect(environ(launcher)).not.toContain(`${k}=${v}`);
    }
    const res = await fetch(`${d!.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'ok' });
  });

  it('passes SIGTERM on: the daemon stops cleanly and the launcher exits 0', async () => {
    const { daemon } = await start();
    const exit = new Promise<{ code: number | null; signal: string | null }>((r) => d!.child.once('exit', (code, signal) => r({ code, signal })));
    d!.child.kill('SIGTERM');
    // The signal, if any, is the daemon's own end passed on by the launcher (a crash shows here).
    expect(await exit, d!.output()).toEqual({ code: 0, signal: null });
    expect(await gone(daemon)).toBe(true);
    expect(d!.output()).toContain('"signal":"SIGTERM"');
  });

  it('stops the daemon when the launcher is killed with SIGKILL', async () => {
    const { daemon } = await start();
    await d!.kill('SIGKILL');
    expect(await gone(daemon)).toBe(true);
    expect(d!.output()).toContain('"signal":"launcher exited"');
    await expect(fetch(`${d!.url}/healthz`)).rejects.toThrow();
  });

  it('ends with the signal that killed the daemon', async () => {
    const { daemon } = await start();
    const exit = new Promise<NodeJS.Signals | null>((r) => d!.child.once('exit', (_code, signal) => r(signal)));
    process.kill(daemon, 'SIGKILL');
    expect(await exit).toBe('SIGKILL');
  });
});
