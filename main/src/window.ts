import type { BrowserWindowLike, ElectronMain } from './electron-api';
import { openExternalWebUrl } from './external-links';

/** The one app window: sandboxed, context-isolated, and kept on the daemon's origin. */
export function createMainWindow(
  electron: ElectronMain,
  preload: string,
  daemonUrl: string,
  daemonOrigin: () => string | null,
): BrowserWindowLike {
  const win = new electron.BrowserWindow({
    width: 1200,
    height: 820,
    title: 'Boxyard',
    webPreferences: { preload, contextIsolation: true, sandbox: true, nodeIntegration: false },
  });
  // Links elsewhere (box download URLs, docs) open in the user's browser, never inside the app;
  // only http(s) ones: any other scheme is dropped (external-links.ts).
  win.webContents.setWindowOpenHandler(({ url }) => {
    openExternalWebUrl(electron.shell, url);
    return { action: 'deny' };
  });
  win.webContents.on('will-navigate', (event, url) => {
    // The origin is read each time: a port change in the settings moves the daemon.
    if (sameOrigin(url, daemonOrigin())) return;
    event.preventDefault();
    openExternalWebUrl(electron.shell, url);
  });
  void win.loadURL(`${daemonUrl}/ui/`);
  return win;
}

function sameOrigin(url: string, origin: string | null): boolean {
  try {
    return origin !== null && new URL(url).origin === origin;
  } catch {
    return false;
  }
}
