import { DesktopInfo, DesktopSettings, IPC, Welcome } from '../../daemon/src/contract/ipc';
import type { ElectronMain, IpcMainInvokeEventLike } from './electron-api';

export interface IpcHandlers {
  info(): DesktopInfo;
  saveSettings(settings: DesktopSettings): Promise<DesktopInfo>;
  openDataDir(): Promise<void>;
  welcome(): Welcome;
  dismissWelcome(): void;
  /** The daemon's origin now: only pages from it may call the bridge. */
  trustedOrigin(): string | null;
}

function assertTrusted(event: IpcMainInvokeEventLike, h: IpcHandlers): void {
  const origin = h.trustedOrigin();
  const from = event.senderFrame ? new URL(event.senderFrame.url).origin : null;
  if (!origin || from !== origin)
    throw new Error(
      `Refused: the desktop bridge only answers pages from the Boxyard daemon (${origin ?? 'not running'}).`,
    );
}

/** Registers the bridge's channels; every argument is checked with the contract's zod schemas. */
export function registerIpc(electron: ElectronMain, h: IpcHandlers): void {
  electron.ipcMain.handle(IPC.info, (event) => {
    assertTrusted(event, h);
    return DesktopInfo.parse(h.info());
  });
  electron.ipcMain.handle(IPC.saveSettings, async (event, raw) => {
    assertTrusted(event, h);
    return DesktopInfo.parse(await h.saveSettings(DesktopSettings.parse(raw)));
  });
  electron.ipcMain.handle(IPC.openDataDir, async (event) => {
    assertTrusted(event, h);
    await h.openDataDir();
  });
  electron.ipcMain.handle(IPC.welcome, (event) => {
    assertTrusted(event, h);
    return Welcome.parse(h.welcome());
  });
  electron.ipcMain.handle(IPC.dismissWelcome, (event) => {
    assertTrusted(event, h);
    h.dismissWelcome();
  });
}
