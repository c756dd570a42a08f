import type { BrowserWindowLike, ElectronMain } from './electron-api';

/** The one app window: sandboxed, context-isolated, and kept on the daemon's origin. */
export function createMainWindow(electron: ElectronMain, preload: string, daemonUrl: string, daemonOrigin: () => string | null): BrowserWindowLike {
  const win = new electron.BrowserWindow({
    width: 1200,
    height: 820,
    title: 'Boxyard',
    webPreferences: { preload, contextIsolation: true, sandbox: true, nodeIntegration: false },
  });
  // Links elsewhere (box download URLs, docs) open in the user's browser, never inside the app.
  win.webContents.setWindowOpenHandler(({ url }) => {
    void electron.shell.openExternal(url);
    return { action: 'deny' };
  });
  win.webContents.on('will-navigate', (event, url) => {
    // The origin is read each time: a port change in the settings moves the daemon.
    if (new URL(url).origin === daemonOrigin()) return;
    event.preventDefault();
    void electron.shell.openExternal(url);
  });
  void win.loadURL(`${daemonUrl}/ui/`);
  return win;
}
