/**
 * The part of Electron's main-process API this shell uses, written from electron 41's electron.d.ts.
 * Why not `import … from 'electron'`: electron is an optional dependency whose install step
 * downloads a binary; where that fails (CI, offline machines) npm drops the whole package, types
 * included, and the typecheck must still pass. main.ts gets the real module with require().
 */
export interface WebContentsLike {
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'allow' | 'deny' }): void;
  on(event: 'will-navigate', listener: (event: { preventDefault(): void }, url: string) => void): void;
}

export interface BrowserWindowLike {
  loadURL(url: string): Promise<void>;
  show(): void;
  focus(): void;
  restore(): void;
  isMinimized(): boolean;
  isDestroyed(): boolean;
  on(event: 'closed', listener: () => void): void;
  webContents: WebContentsLike;
}

export interface BrowserWindowOptions {
  width: number;
  height: number;
  title: string;
  show?: boolean;
  webPreferences: { preload: string; contextIsolation: true; sandbox: true; nodeIntegration: false };
}

export interface MenuItemOptions {
  label?: string;
  type?: 'separator' | 'checkbox';
  checked?: boolean;
  enabled?: boolean;
  click?: () => void;
}
export interface TrayLike {
  setToolTip(text: string): void;
  setContextMenu(menu: unknown): void;
  on(event: 'click', listener: () => void): void;
}

export interface IpcMainInvokeEventLike {
  senderFrame: { url: string } | null;
}

export interface ElectronMain {
  app: {
    whenReady(): Promise<void>;
    getPath(name: 'userData'): string;
    getVersion(): string;
    /** False when run from a source checkout (`npm run desktop`). */
    isPackaged: boolean;
    requestSingleInstanceLock(): boolean;
    quit(): void;
    exit(code?: number): void;
    on(event: 'second-instance' | 'window-all-closed' | 'activate', listener: () => void): void;
    on(event: 'before-quit', listener: (event: { preventDefault(): void }) => void): void;
  };
  BrowserWindow: new (options: BrowserWindowOptions) => BrowserWindowLike;
  Tray: new (iconPath: string) => TrayLike;
  Menu: { buildFromTemplate(template: MenuItemOptions[]): unknown };
  ipcMain: { handle(channel: string, listener: (event: IpcMainInvokeEventLike, ...args: unknown[]) => unknown): void };
  shell: { openExternal(url: string): Promise<void>; openPath(path: string): Promise<string> };
  clipboard: { writeText(text: string): void };
  /** Available once the app is ready. The request's certificate `data` is PEM; 0 trusts, -3 leaves it to Chromium. */
  session: {
    defaultSession: {
      setCertificateVerifyProc(
        proc: (request: { hostname: string; certificate: { data: string } }, callback: (code: number) => void) => void,
      ): void;
    };
  };
  dialog: {
    showMessageBox(options: {
      type?: 'info' | 'error';
      title?: string;
      message: string;
      detail?: string;
      buttons?: string[];
    }): Promise<{ response: number }>;
  };
}

/** What the preload script uses (sandboxed preloads get only these). */
export interface ElectronPreload {
  contextBridge: { exposeInMainWorld(key: string, api: unknown): void };
  ipcRenderer: { invoke(channel: string, ...args: unknown[]): Promise<unknown> };
}
