import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { IPC } from '../../daemon/src/contract/ipc';
import { freePort } from '../helpers/spawn-daemon';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FAKE = fileURLToPath(new URL('./fixtures/fake-electron.cjs', import.meta.url));

/** One call the stand-in Electron logged (fixtures/fake-electron.cjs): its kind is its key. */
interface FakeEvent {
  [key: string]: unknown;
  tray?: string;
  window?: { webPreferences: { preload: string } };
  offline?: { checked: boolean; enabled: boolean };
  lanUrls?: string[];
}

/** Runs the bundled main process under Node with a stand-in Electron; answers the calls it made. */
async function runMain(
  userData: string,
  linkProbes: string[] = [],
  env: Record<string, string> = {},
): Promise<{ code: number | null; events: FakeEvent[] }> {
  const child = spawn(process.execPath, ['-r', FAKE, join(ROOT, 'main/dist/main.cjs')], {
    env: {
      ...process.env,
      FAKE_USER_DATA: userData,
      BOXYARD_NODE: process.execPath,
      BOXYARD_LOG_LEVEL: 'silent',
      BOXYARD_ADMIN_PASSWORD: '',
      FAKE_LINK_PROBES: JSON.stringify(linkProbes),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString();
  });
  const code = await new Promise<number | null>((r) => child.on('exit', r));
  const events = out
    .split('\n')
    .filter((l) => l.startsWith('ELECTRON '))
    .map((l) => JSON.parse(l.slice('ELECTRON '.length)));
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

    const probes = [
      'https://example.org/docs',
      'file:///etc/passwd',
      'javascript:alert(1)',
      'smb://attacker.example/share',
      'ms-msdt:/id x',
      `http://127.0.0.1:${port}/ui/boxes`,
    ];
    const { code, events } = await runMain(userData, probes);
    expect(code).toBe(0);
    // The bundled window, each probe tried as window.open and as a navigation: only http(s) links reach the
    // operating system (a window.open of the daemon's own page too, but navigating to it stays in the window).
    expect(events.filter((e) => e.openExternal).map((e) => e.openExternal)).toEqual([
      'https://example.org/docs',
      'https://example.org/docs',
      probes.at(-1),
    ]);
    expect(events.filter((e) => e.probe).map((e) => [e.probe, e.open, e.navigationPrevented])).toEqual([
      ...probes.slice(0, -1).map((p) => [p, 'deny', true]),
      [probes.at(-1), 'deny', false],
    ]);
    expect(
      events
        .filter((e) => e.ipc)
        .map((e) => e.ipc)
        .sort(),
    ).toEqual(Object.values(IPC).sort());
    const tray = events.find((e) => e.tray)?.tray;
    assert(tray, 'the main process made no tray icon');
    expect(existsSync(tray)).toBe(true);
    expect(events.some((e) => e.tooltip === `Boxyard: Running at http://127.0.0.1:${port}`)).toBe(true);
    // The first run's password goes to the welcome screen (not a dialog), once: dismissed, it is gone.
    expect(events.some((e) => e.dialog)).toBe(false);
    const seen = events.find((e) => 'welcome' in e);
    assert(seen, 'the main process showed no welcome screen');
    expect(seen.welcome).toEqual({ username: 'admin', password: expect.stringMatching(/^\S{12,}$/) });
    expect(seen.afterDismiss).toBeNull();
    expect(seen.lanUrls).toEqual([]);
    // Loopback only: plain HTTP, no CA to show.
    expect(seen.caFingerprint).toBeNull();
    // LAN access is off: the tray cannot copy a LAN URL.
    expect(events.filter((e) => e.menu).at(-1)?.menu).toContain('Copy LAN URL (LAN access is off)');

    const win = events.find((e) => e.window)?.window;
    assert(win, 'the main process opened no window');
    expect(win.webPreferences).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false });
    expect(existsSync(win.webPreferences.preload)).toBe(true);
    expect(events.find((e) => e.loadURL)?.loadURL).toBe(`http://127.0.0.1:${port}/ui/`);
    // Quit waits for the daemon to stop before the app exits; the tray says so meanwhile.
    expect(events.filter((e) => !e.menu).slice(-4)).toEqual([
      { quitDeferred: true },
      { tooltip: 'Boxyard: Daemon stopping' },
      { tooltip: 'Boxyard: Daemon stopped' },
      { exit: 0 },
    ]);
    // The daemon went down with the app: nothing listens on its port any more.
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
    expect(existsSync(join(userData, 'data', 'boxyard.db'))).toBe(true);
  });

  it('turns the daemon offline from the tray, and a later run has no welcome', async () => {
    const port = await freePort();
    // Settings saved before the HTTPS switch existed: LAN access then means HTTPS (--tls auto).
    writeFileSync(join(userData, 'settings.json'), JSON.stringify({ lanAccess: true, port }));
    const { code, events } = await runMain(userData, [], { FAKE_TRAY_OFFLINE: '1' });
    expect(code).toBe(0);
    const offline = events.flatMap((e) => (e.offline ? [e.offline] : []));
    // Unknown (disabled) until the daemon runs, then off, then on after the click; unknown again once it stopped.
    const at = (o: { checked: boolean; enabled: boolean }) =>
      offline.findIndex((x) => x.checked === o.checked && x.enabled === o.enabled);
    expect(offline[0]).toEqual({ checked: false, enabled: false });
    expect(at({ checked: false, enabled: true })).toBeGreaterThan(0);
    expect(at({ checked: true, enabled: true })).toBeGreaterThan(at({ checked: false, enabled: true }));
    expect(offline.at(-1)).toEqual({ checked: false, enabled: false });
    expect(events.at(-1)).toEqual({ exit: 0 });
    expect(events.find((e) => 'welcome' in e)?.welcome).toBeNull();
    // LAN access on: every external IPv4 address of this machine is a URL for colleagues, over HTTPS.
    const lan = events.find((e) => 'lanUrls' in e)?.lanUrls;
    assert(lan, 'the main process showed no LAN URLs');
    for (const u of lan) expect(u).toMatch(new RegExp(`^https://\\d+\\.\\d+\\.\\d+\\.\\d+:${port}$`));
    expect(events.find((e) => e.loadURL)?.loadURL).toBe(`https://127.0.0.1:${port}/ui/`);
    expect(events.some((e) => e.tooltip === `Boxyard: Running at https://127.0.0.1:${port}`)).toBe(true);
    // The window trusts the daemon's own CA for the daemon's host, and leaves any other host to Chromium.
    expect(events.find((e) => e.verify)?.verify).toEqual({ daemon: 0, other: -3 });
    // The fingerprint shown is the CA's in the data folder.
    const ca = new X509Certificate(readFileSync(join(userData, 'data', 'tls', 'ca.pem'), 'utf8'));
    expect(events.find((e) => 'caFingerprint' in e)?.caFingerprint).toBe(ca.fingerprint256);
    // The switch is in the data folder: the daemon starts offline next time too.
    const settings = execFileSync(
      process.execPath,
      [join(ROOT, 'bin/boxyard.mjs'), 'settings', '--data', join(userData, 'data')],
      { encoding: 'utf8' },
    );
    expect(JSON.parse(settings)).toMatchObject({ offline: true });
  });
});
