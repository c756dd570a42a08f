import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { join, resolve } from 'node:path';
import { httpsMode, type DesktopInfo, type DesktopSettings, type Welcome } from '../../daemon/src/contract/ipc';
import { daemonCertificateVerifier } from './daemon-trust';
import { DaemonSupervisor, type SupervisorStatus } from './daemon-supervisor';
import { DaemonSettingsCli, type RuntimeSwitches } from './daemon-settings';
import { ACME_CERT_FILE, LOCAL_CA_FILE, lanUrls } from '../../daemon/src/contract/lan';
import type { BrowserWindowLike, ElectronMain } from './electron-api';
import { registerIpc } from './ipc';
import { SettingsStore } from './settings-store';
import { AppTray } from './tray';
import { createMainWindow } from './window';
import { openExternalWebUrl } from './external-links';

// See electron-api.ts for why Electron is required rather than imported. This file is bundled to
// main/dist/main.cjs, so __dirname is main/dist in a checkout and in the packaged app alike.
const ROOT = resolve(__dirname, '..', '..');
/**
 * The daemon's files: in the packaged app they are unpacked beside app.asar (electron-builder.yml
 * asarUnpack), because the daemon is a child process that loads a native module and reads them.
 */
const DAEMON_ROOT = ROOT.endsWith('.asar') ? `${ROOT}.unpacked` : ROOT;
/** The daemon's first-run line (daemon/src/main.ts). */
const ADMIN_PASSWORD = /Created administrator "([^"]+)" with password: (\S+)/;

/** The desktop app: one supervised daemon, one window on its /ui/, a tray icon, the settings bridge. */
class DesktopShell {
  private readonly dataDir: string;
  private readonly store: SettingsStore;
  private settings: DesktopSettings;
  private readonly supervisor: DaemonSupervisor;
  private win: BrowserWindowLike | null = null;
  private tray: AppTray | null = null;
  private readonly settingsCli: DaemonSettingsCli;
  /** The daemon's offline switch as last read, null while unknown. */
  private switches: RuntimeSwitches | null = null;
  /** The first run's administrator account, shown by the UI's welcome screen until dismissed; never written to disk. */
  private welcome: Welcome = null;

  constructor(
    private readonly electron: ElectronMain,
    env: Record<string, string | undefined>,
  ) {
    const userData = electron.app.getPath('userData');
    this.dataDir = join(userData, 'data');
    this.store = new SettingsStore(join(userData, 'settings.json'));
    this.settings = this.store.load();
    const command = electron.app.isPackaged ? process.execPath : (env.BOXYARD_NODE ?? 'node');
    const daemon = {
      command,
      script: join(DAEMON_ROOT, 'bin', 'boxyard.mjs'),
      dataDir: this.dataDir,
      env: { ...env, ELECTRON_RUN_AS_NODE: '1' },
    };
    this.settingsCli = new DaemonSettingsCli(daemon);
    this.supervisor = new DaemonSupervisor({
      // Packaged: Electron's own Node runs the daemon (native modules are rebuilt for it by
      // electron-builder). From a checkout they are built for the system Node, so use that.
      ...daemon,
      onChange: (s) => this.statusChanged(s),
      onAdminPassword: (message) => {
        const m = ADMIN_PASSWORD.exec(message);
        if (m) this.welcome = { username: m[1], password: m[2] };
      },
    });
  }

  /** Counts the daemon's runs and stops: a settings answer counts only in the run it was asked in. */
  private run = 0;
  private last: Pick<SupervisorStatus, 'state' | 'url'> = { state: 'stopped', url: null };

  private statusChanged(s: SupervisorStatus): void {
    // A new state or URL is a new run (or none); a change of lastError alone keeps the switches.
    if (s.state !== this.last.state || s.url !== this.last.url) {
      this.run++;
      this.switches = null;
      if (s.state === 'running') this.showSwitches(this.settingsCli.read(), () => undefined);
    }
    this.last = { state: s.state, url: s.url };
    this.updateTray();
  }

  /** Shows the switches the settings CLI answers, unless the daemon stopped or restarted meanwhile. */
  private showSwitches(answer: Promise<RuntimeSwitches>, failed: (e: Error) => void): void {
    const run = this.run;
    void answer.then((sw) => {
      if (run === this.run) {
        this.switches = sw;
        this.updateTray();
      }
    }, failed);
  }

  private updateTray(): void {
    const sw = this.switches;
    this.tray?.update(this.supervisor.current(), {
      lanUrl: this.lanUrls()[0] ?? null,
      offline: sw && { on: sw.offline, forced: sw.offline_forced },
    });
  }

  private https = (): boolean => this.supervisor.current().url?.startsWith('https://') ?? false;
  private lanUrls = (): string[] =>
    this.supervisor.current().url
      ? lanUrls(this.settings.lanAccess, this.settings.port, networkInterfaces(), this.https() ? 'https' : 'http')
      : [];
  /** The CA colleagues trust (docs/https.md): its fingerprint, while the daemon serves HTTPS. */
  private caFingerprint = (): string | null => {
    // Only Boxyard's own CA has a fingerprint to check; your own or an ACME certificate is trusted as any site's.
    if (!this.https() || httpsMode(this.settings) !== 'auto') return null;
    try {
      return new X509Certificate(readFileSync(join(this.dataDir, LOCAL_CA_FILE), 'utf8')).fingerprint256;
    } catch {
      return null;
    }
  };

  private setOffline = (offline: boolean): void => {
    this.showSwitches(
      this.settingsCli.setOffline(offline),
      (e) =>
        void this.electron.dialog.showMessageBox({
          type: 'error',
          title: 'Boxyard',
          message: 'The offline switch could not be changed.',
          detail: e.message,
        }),
    );
  };

  info = (): DesktopInfo => ({
    version: this.electron.app.getVersion(),
    dataDir: this.dataDir,
    ...this.supervisor.current(),
    settings: this.settings,
    lanUrls: this.lanUrls(),
    caFingerprint: this.caFingerprint(),
  });
  origin = (): string | null => {
    const u = this.supervisor.current().url;
    return u ? new URL(u).origin : null;
  };

  openWindow = (): void => {
    const url = this.supervisor.current().url;
    if (!url) return;
    if (this.win && !this.win.isDestroyed()) {
      if (this.win.isMinimized()) this.win.restore();
      this.win.show();
      this.win.focus();
      return;
    }
    this.win = createMainWindow(this.electron, join(__dirname, 'preload.cjs'), url, this.origin);
    this.win.on('closed', () => {
      this.win = null;
    });
  };

  startDaemon = async (): Promise<void> => {
    try {
      await this.supervisor.start(this.settings);
    } catch (e) {
      const detail = e instanceof Error ? e.message : String(e);
      await this.electron.dialog.showMessageBox({
        type: 'error',
        title: 'Boxyard',
        message: 'The Boxyard daemon did not start.',
        detail,
      });
    }
  };

  /** App events and IPC; call once, before the app is ready. */
  wire(): void {
    const { app } = this.electron;
    registerIpc(this.electron, {
      info: this.info,
      saveSettings: async (next) => {
        this.settings = this.store.save(next);
        await this.startDaemon();
        return this.info();
      },
      openDataDir: async () => {
        await this.electron.shell.openPath(this.dataDir);
      },
      welcome: () => this.welcome,
      dismissWelcome: () => {
        this.welcome = null;
      },
      trustedOrigin: this.origin,
    });
    app.on('second-instance', this.openWindow);
    app.on('activate', this.openWindow);
    // Closing the window leaves the daemon serving the LAN; Quit in the tray stops everything.
    app.on('window-all-closed', () => undefined);
    let quitting = false;
    app.on('before-quit', (event) => {
      if (quitting) return;
      event.preventDefault();
      quitting = true;
      void this.supervisor.stop().finally(() => app.exit(0));
    });
  }

  async ready(): Promise<void> {
    // The window trusts the daemon's own CA for the daemon's host, and only there.
    this.electron.session.defaultSession.setCertificateVerifyProc(
      daemonCertificateVerifier({
        dataDir: this.dataDir,
        daemonHost: () => {
          const u = this.supervisor.current().url;
          return u ? new URL(u).hostname : null;
        },
        // Your own or an ACME certificate names the public host, not the address the window loads: exactly that
        // certificate is trusted there.
        servedFile: () =>
          ({ files: this.settings.tlsCert ?? null, acme: join(this.dataDir, ACME_CERT_FILE), auto: null, off: null })[
            httpsMode(this.settings)
          ],
      }),
    );
    this.tray = new AppTray(this.electron, join(ROOT, 'main', 'assets', 'tray.png'), {
      openWindow: this.openWindow,
      openInBrowser: () => {
        const u = this.supervisor.current().url;
        if (u) openExternalWebUrl(this.electron.shell, `${u}/ui/`);
      },
      copyLanUrl: () => {
        const u = this.lanUrls()[0];
        if (u) this.electron.clipboard.writeText(u);
      },
      setOffline: this.setOffline,
      restartDaemon: () => void this.startDaemon().then(this.openWindow),
      quit: () => this.electron.app.quit(),
    });
    this.updateTray();
    await this.startDaemon();
    this.openWindow();
  }
}

const electron = require('electron') as ElectronMain;
if (!electron.app.requestSingleInstanceLock()) {
  electron.app.quit();
} else {
  const shell = new DesktopShell(electron, process.env);
  shell.wire();
  void electron.app.whenReady().then(() => shell.ready());
}
