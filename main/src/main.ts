import { join, resolve } from 'node:path';
import type { DesktopInfo, DesktopSettings } from '../../daemon/src/contract/ipc';
import { DaemonSupervisor } from './daemon-supervisor';
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

/** The desktop app: one supervised daemon, one window on its /ui/, a tray icon, the settings bridge. */
class DesktopShell {
  private readonly dataDir: string;
  private readonly store: SettingsStore;
  private settings: DesktopSettings;
  private readonly supervisor: DaemonSupervisor;
  private win: BrowserWindowLike | null = null;
  private tray: AppTray | null = null;

  constructor(private readonly electron: ElectronMain, env: Record<string, string | undefined>) {
    const userData = electron.app.getPath('userData');
    this.dataDir = join(userData, 'data');
    this.store = new SettingsStore(join(userData, 'settings.json'));
    this.settings = this.store.load();
    this.supervisor = new DaemonSupervisor({
      // Packaged: Electron's own Node runs the daemon (native modules are rebuilt for it by
      // electron-builder). From a checkout they are built for the system Node, so use that.
      command: electron.app.isPackaged ? process.execPath : (env.BOXYARD_NODE ?? 'node'),
      script: join(DAEMON_ROOT, 'bin', 'boxyard.mjs'),
      dataDir: this.dataDir,
      env: { ...env, ELECTRON_RUN_AS_NODE: '1' },
      onChange: (s) => this.tray?.update(s),
      onAdminPassword: (message) =>
        void electron.dialog.showMessageBox({ type: 'info', title: 'Boxyard', message: 'Your Boxyard administrator account', detail: message }),
    });
  }

  info = (): DesktopInfo => ({ version: this.electron.app.getVersion(), dataDir: this.dataDir, ...this.supervisor.current(), settings: this.settings });
  origin = (): string | null => { const u = this.supervisor.current().url; return u ? new URL(u).origin : null; };

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
    this.win.on('closed', () => { this.win = null; });
  };

  startDaemon = async (): Promise<void> => {
    try {
      await this.supervisor.start(this.settings);
    } catch (e) {
      const detail = e instanceof Error ? e.message : String(e);
      await this.electron.dialog.showMessageBox({ type: 'error', title: 'Boxyard', message: 'The Boxyard daemon did not start.', detail });
    }
  };

  /** App events and IPC; call once, before the app is ready. */
  wire(): void {
    const { app } = this.electron;
    registerIpc(this.electron, {
      info: this.info,
      saveSettings: async (next) => { this.settings = this.store.save(next); await this.startDaemon(); return this.info(); },
      openDataDir: async () => { await this.electron.shell.openPath(this.dataDir); },
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
    this.tray = new AppTray(this.electron, join(ROOT, 'main', 'assets', 'tray.png'), {
      openWindow: this.openWindow,
      openInBrowser: () => { const u = this.supervisor.current().url; if (u) openExternalWebUrl(this.electron.shell, `${u}/ui/`); },
      restartDaemon: () => void this.startDaemon().then(this.openWindow),
      quit: () => this.electron.app.quit(),
    });
    this.tray.update(this.supervisor.current());
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
