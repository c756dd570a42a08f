import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { IPC } from '../../daemon/src/contract/ipc';
import { freePort } from '../helpers/spawn-daemon';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FAKE = fileURLToPath(new URL('./fixtures/fake-electron.cjs', import.meta.url));

/** Runs the bundled main process under Node with a stand-in Electron; answers the calls it made. */
async function runMain(userData: string, linkProbes: string[] = []): Promise<{ code: number | null; events: Array<Record<string, any>> }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const child = spawn(process.execPath, ['-r', FAKE, join(ROOT, 'main/dist/main.cjs')], {
    env: {
      ...process.env, FAKE_USER_DATA: userData, BOXYARD_NODE: process.execPath, BOXYARD_LOG_LEVEL: 'silent', BOXYARD_ADMIN_PASSWORD: '',
      FAKE_LINK_PROBES: JSON.stringify(linkProbes),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => { out += c.toString(); });
  const code = await new Promise<number | null>((r) => child.on('exit', r));
  const events = out.split('\n').filter((l) => l.startsWith('ELECTRON ')).map((l) => JSON.parse(l.slice('ELECTRON '.length)));
  return { code, events };
}

// Electron's binary cannot run here; this drives the real bundled main.cjs end to end with a fake
// Electron API: daemon start, window, tray, IPC, first-run password, and a clean stop on quit.
describe('desktop main process (bundled, fake Electron)', () => {
  const userData = mkdtempSync(join(tmpdir(), 'boxyard-electron-'));
  afterAll(() => rmSync(userData, { recursive: true, force: true }));

  it('starts the daemon, opens a sandboxed window on /ui/, and stops the daemon on quit', async () => {
    execFileSync('npm', ['run', '--silent', 'build:desktop'], { cwd: ROOT, stdio: 'ignore' });
    const port = await freePort();
    writeFileSync(join(userData, 'settings.json'), JSON.stringify({ lanAccess: false, port }));

    const probes = ['https://example.org/docs', 'file:///etc/passwd', 'javascript:alert(1)', 'smb://attacker.example/share', 'ms-msdt:/id x', `http://127.0.0.1:${port}/ui/boxes`];
    const { code, events } = await runMain(userData, probes);
    expect(code).toBe(0);
    // The bundled window, each probe tried as window.open and as a navigation: only http(s) links reach the
    // operating system (a window.open of the daemon's own page too, but navigating to it stays in the window).
    expect(events.filter((e) => e.openExternal).map((e) => e.openExternal)).toEqual(['https://example.org/docs', 'https://example.org/docs', probes.at(-1)]);
    expect(events.filter((e) => e.probe).map((e) => [e.probe, e.open, e.navigationPrevented])).toEqual([
      ...probes.slice(0, -1).map((p) => [p, 'deny', true]),
      [probes.at(-1), 'deny', false],
    ]);
    expect(events.filter((e) => e.ipc).map((e) => e.ipc).sort()).toEqual(Object.values(IPC).sort());
    const tray = events.find((e) => e.tray)?.tray;
    expect(existsSync(tray)).toBe(true);
    expect(events.some((e) => e.tooltip === `Boxyard: Running at http://127.0.0.1:${port}`)).toBe(true);
    expect(events.find((e) => e.dialog)?.dialog.detail).toMatch(/Created administrator "admin" with password: \S+/);

    const win = events.find((e) => e.window)?.window;
    expect(win.webPreferences).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false });
    expect(existsSync(win.webPreferences.preload)).toBe(true);
    expect(events.find((e) => e.loadURL)?.loadURL).toBe(`http://127.0.0.1:${port}/ui/`);
    // Quit waits for the daemon to stop before the app exits.
    expect(events.slice(-3)).toEqual([{ quitDeferred: true }, { tooltip: 'Boxyard: Daemon stopped' }, { exit: 0 }]);
    // The daemon went down with the app: nothing listens on its port any more.
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
    expect(existsSync(join(userData, 'data', 'boxyard.db'))).toBe(true);
  });
});
