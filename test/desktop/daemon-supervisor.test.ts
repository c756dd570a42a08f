import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { DaemonSupervisor, type SupervisorStatus } from '../../main/src/daemon-supervisor';
import { freePort } from '../helpers/spawn-daemon';

const SCRIPT = fileURLToPath(new URL('../../bin/boxyard.mjs', import.meta.url));

async function until(what: string, check: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// The Electron shell cannot be launched here, but what it supervises is plain Node: drive the real
// `boxyard serve` the way main/src/main.ts does, with the system Node in place of Electron's.
describe('DaemonSupervisor', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0)) await c();
  });

  function supervisor(extra: { maxCrashesPerMinute?: number; script?: string } = {}) {
    const dataDir = mkdtempSync(join(tmpdir(), 'boxyard-desktop-'));
    const states: SupervisorStatus[] = [];
    const passwords: string[] = [];
    const s = new DaemonSupervisor({
      command: process.execPath,
      script: extra.script ?? SCRIPT,
      dataDir,
      env: { ...process.env, BOXYARD_LOG_LEVEL: 'silent', BOXYARD_ADMIN_PASSWORD: undefined },
      onChange: (st) => states.push(st),
      onAdminPassword: (m) => passwords.push(m),
      restartDelayMs: 50,
      maxCrashesPerMinute: extra.maxCrashesPerMinute,
    });
    cleanups.push(async () => {
      await s.stop();
      rmSync(dataDir, { recursive: true, force: true });
    });
    return { s, states, passwords };
  }

  it('starts the daemon, reports its URL and the generated admin password, restarts it after a crash, stops it', async () => {
    const { s, states, passwords } = supervisor();
    const port = await freePort();
    const url = await s.start({ lanAccess: false, lanHttps: true, port });
    expect(url).toBe(`http://127.0.0.1:${port}`);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect(passwords[0]).toMatch(/Created administrator "admin" with password: \S+/);

    const firstPid = s.pid();
    assert(firstPid, 'the supervisor runs no daemon process');
    process.kill(firstPid, 'SIGKILL');
    await until('a restart', () => states.some((st) => st.state === 'restarting'));
    await until('running again', () => s.current().state === 'running' && s.pid() !== firstPid);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);

    const pid = s.pid();
    assert(pid, 'the supervisor runs no daemon process after the restart');
    await s.stop();
    expect(states.slice(-2).map((st) => st.state)).toEqual(['stopping', 'stopped']);
    expect(s.current().state).toBe('stopped');
    expect(() => process.kill(pid, 0)).toThrow();
  });

  it('passes the data folder, and binds all interfaces only with LAN access on, over HTTPS unless switched off', () => {
    const { s } = supervisor();
    const local = s.args({ lanAccess: false, lanHttps: true, port: 4780 });
    expect(local).toEqual([SCRIPT, 'serve', '--data', expect.any(String), '--host', '127.0.0.1', '--port', '4780']);
    expect(s.args({ lanAccess: true, lanHttps: true, port: 8080 }).slice(4)).toEqual([
      '--host',
      '0.0.0.0',
      '--port',
      '8080',
      '--tls',
      'auto',
    ]);
    expect(s.args({ lanAccess: true, lanHttps: false, port: 8080 }).slice(4)).toEqual([
      '--host',
      '0.0.0.0',
      '--port',
      '8080',
    ]);
    const own = { tlsCert: '/etc/ssl/b.pem', tlsKey: '/etc/ssl/b-key.pem' };
    expect(s.args({ lanAccess: true, lanHttps: true, port: 8080, ...own }).slice(4)).toEqual([
      '--host',
      '0.0.0.0',
      '--port',
      '8080',
      '--tls-cert',
      own.tlsCert,
      '--tls-key',
      own.tlsKey,
    ]);
    expect(s.args({ lanAccess: false, lanHttps: true, port: 8080, ...own }).slice(4)).toEqual([
      '--host',
      '127.0.0.1',
      '--port',
      '8080',
    ]);
    expect(
      s
        .args({
          lanAccess: true,
          lanHttps: true,
          port: 443,
          acmeUrl: 'https://boxes.example.org',
          acmeEmail: 'ops@example.org',
        })
        .slice(4),
    ).toEqual([
      '--host',
      '0.0.0.0',
      '--port',
      '443',
      '--tls',
      'acme',
      '--public-url',
      'https://boxes.example.org',
      '--acme-email',
      'ops@example.org',
    ]);
  });

  it('gives up with the error when the daemon cannot start', async () => {
    const { s } = supervisor({ maxCrashesPerMinute: 2 });
    const blocker = createServer();
    const port = await freePort();
    await new Promise<void>((r) => blocker.listen(port, '127.0.0.1', r));
    cleanups.push(() => new Promise<void>((r) => blocker.close(() => r())));
    await expect(s.start({ lanAccess: false, lanHttps: true, port })).rejects.toThrow(/keeps stopping/);
    expect(s.current().state).toBe('failed');
    expect(s.current().lastError).toMatch(/EADDRINUSE|address already in use/i);
  });
});
