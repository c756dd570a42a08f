import type { ElectronMain, TrayLike } from './electron-api';
import type { SupervisorStatus } from './daemon-supervisor';

export interface TrayActions {
  openWindow(): void;
  openInBrowser(): void;
  restartDaemon(): void;
  quit(): void;
}

/** The tray icon: shows the daemon's state and keeps Boxyard reachable with the window closed. */
export class AppTray {
  private readonly tray: TrayLike;

  constructor(private readonly electron: ElectronMain, icon: string, private readonly actions: TrayActions) {
    this.tray = new electron.Tray(icon);
    this.tray.on('click', () => actions.openWindow());
  }

  update(status: SupervisorStatus): void {
    const label = status.state === 'running' ? `Running at ${status.url}` : `Daemon ${status.state}`;
    this.tray.setToolTip(`Boxyard: ${label}`);
    this.tray.setContextMenu(this.electron.Menu.buildFromTemplate([
      { label, enabled: false },
      { type: 'separator' },
      { label: 'Open Boxyard', click: this.actions.openWindow },
      { label: 'Open in browser', enabled: status.url !== null, click: this.actions.openInBrowser },
      { label: 'Restart daemon', click: this.actions.restartDaemon },
      { type: 'separator' },
      { label: 'Quit Boxyard', click: this.actions.quit },
    ]));
  }
}
