import { join, resolve } from 'node:path';
import type { DesktopInfo } from '../../daemon/src/contract/ipc';
import { DaemonSupervisor } from './daemon-supervisor';
import type { BrowserWindowLike, ElectronMain } from './electron-api';
import { registerIpc } from './ipc';
import { SettingsStore } from './settings-store';
import { AppTray } from './tray';
import { createMainWindow } from './window';

// See electron-api.ts for why Electron is required rather than imported. This file is bundled to
// main/dist/main.cjs, so __dirname is main/dist in a checkout and in the packaged app alike.
const electron = require('electron') as ElectronMain;
const { app } = electron;
const ROOT = resolve(__dirname, '..', '..');

function supervisorFor(dataDir: string, onAdminPassword: (message: string) => void, onChange: () => void): DaemonSupervisor {
  return new DaemonSupervisor({
    // Packaged: Electron's own Node runs the daemon (native modules are rebuilt for it by
    // electron-builder). From a checkout they are built for the system Node, so use that.
    command: app.isPackaged ? process.execPath : (process.env.BOXYARD_NODE ?? 'node'),
    script: join(ROOT, 'bin', 'boxyard.mjs'),
    dataDir,
    env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
    onAdminPassword,
    onChange,
  });
}

function run(): void {
  if (!app.requestSingleInstanceLock()) return app.quit();
  const userData = app.getPath('userData');
  const dataDir = join(userData, 'data');
  const store = new SettingsStore(join(userData, 'settings.json'));
  let settings = store.load();
  let win: BrowserWindowLike | null = null;
  let tray: AppTray | null = null;

  const showAdminPassword = (message: string) =>
    void electron.dialog.showMessageBox({ type: 'info', title: 'Boxyard', message: 'Your Boxyard administrator account', detail: message });
  const supervisor = supervisorFor(dataDir, showAdminPassword, () => tray?.update(supervisor.current()));
  const origin = () => { const u = supervisor.current().url; return u ? new URL(u).origin : null; };
  const info = (): DesktopInfo => ({ version: app.getVersion(), dataDir, ...supervisor.current(), settings });

  const openWindow = () => {
    const url = supervisor.current().url;
    if (!url) return;
    if (win && !win.isDestroyed()) {
      if (win.isMinimized()) win.restore();
      win.show();
      win.focus();
      return;
    }
    win = createMainWindow(electron, join(__dirname, 'preload.cjs'), url, origin);
    win.on('closed', () => { win = null; });
  };
  const startDaemon = async () => {
    try {
      await supervisor.start(settings);
    } catch (e) {
      await electron.dialog.showMessageBox({ type: 'error', title: 'Boxyard', message: 'The Boxyard daemon did not start.', detail: e instanceof Error ? e.message : String(e) });
    }
  };

  registerIpc(electron, {
    info,
    saveSettings: async (next) => { settings = store.save(next); await startDaemon(); return info(); },
    openDataDir: async () => { await electron.shell.openPath(dataDir); },
    trustedOrigin: origin,
  });

  app.on('second-instance', openWindow);
  app.on('activate', openWindow);
  // Closing the window leaves the daemon serving the LAN; Quit in the tray stops everything.
  app.on('window-all-closed', () => undefined);
  let quitting = false;
  app.on('before-quit', (event) => {
    if (quitting) return;
    event.preventDefault();
    quitting = true;
    void supervisor.stop().finally(() => app.exit(0));
  });

  void app.whenReady().then(async () => {
    tray = new AppTray(electron, join(ROOT, 'main', 'assets', 'tray.png'), {
      openWindow,
      openInBrowser: () => { const u = supervisor.current().url; if (u) void electron.shell.openExternal(`${u}/ui/`); },
      restartDaemon: () => void startDaemon().then(openWindow),
      quit: () => app.quit(),
    });
    tray.update(supervisor.current());
    await startDaemon();
    openWindow();
  });
}

run();
