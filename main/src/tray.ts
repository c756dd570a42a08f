import type { ElectronMain, TrayLike } from './electron-api';
import type { SupervisorStatus } from './daemon-supervisor';

export interface TrayActions {
  openWindow(): void;
  openInBrowser(): void;
  /** Puts the URL colleagues use on the clipboard. */
  copyLanUrl(): void;
  setOffline(offline: boolean): void;
  restartDaemon(): void;
  quit(): void;
}

/** What the tray shows besides the daemon's state. */
export interface TrayExtras {
  /** The URL to give colleagues, or null while LAN access is off. */
  lanUrl: string | null;
  /** The daemon's offline switch, null while it is not known (the daemon is not running); forced by --offline. */
  offline: { on: boolean; forced: boolean } | null;
}

/** The tray icon: shows the daemon's state and keeps Boxyard reachable with the window closed. */
export class AppTray {
  private readonly tray: TrayLike;

  constructor(
    private readonly electron: ElectronMain,
    icon: string,
    private readonly actions: TrayActions,
  ) {
    this.tray = new electron.Tray(icon);
    this.tray.on('click', () => actions.openWindow());
  }

  update(status: SupervisorStatus, extras: TrayExtras): void {
    const label = status.state === 'running' ? `Running at ${status.url}` : `Daemon ${status.state}`;
    const { offline } = extras;
    this.tray.setToolTip(`Boxyard: ${label}${offline?.on ? ' (offline)' : ''}`);
    this.tray.setContextMenu(
      this.electron.Menu.buildFromTemplate([
        { label, enabled: false },
        { type: 'separator' },
        { label: 'Open Boxyard', click: this.actions.openWindow },
        { label: 'Open in browser', enabled: status.url !== null, click: this.actions.openInBrowser },
        {
          label: extras.lanUrl ? `Copy LAN URL (${extras.lanUrl})` : 'Copy LAN URL (LAN access is off)',
          enabled: extras.lanUrl !== null,
          click: this.actions.copyLanUrl,
        },
        {
          label: 'Work offline',
          type: 'checkbox',
          checked: offline?.on ?? false,
          enabled: offline !== null && !offline.forced,
          click: () => this.actions.setOffline(!(offline?.on ?? false)),
        },
        { label: 'Restart daemon', click: this.actions.restartDaemon },
        { type: 'separator' },
        { label: 'Quit Boxyard', click: this.actions.quit },
      ]),
    );
  }
}
