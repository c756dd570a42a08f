import { describe, expect, it } from 'vitest';
import type { BrowserWindowOptions, ElectronMain } from '../../main/src/electron-api';
import { isExternalWebUrl } from '../../main/src/external-links';
import { createMainWindow } from '../../main/src/window';

type OpenHandler = (details: { url: string }) => { action: 'allow' | 'deny' };
type NavigateHandler = (event: { preventDefault(): void }, url: string) => void;

/** A handler the window registered with the stand-in; throws when it registered none. */
function registered<H>(handler: H | undefined, what: string): H {
  if (!handler) throw new Error(`the window registered no ${what} handler`);
  return handler;
}

/** createMainWindow against a stand-in Electron: captures the window's handlers and what reaches shell.openExternal. */
function harness(origin = 'http://127.0.0.1:4780') {
  const opened: string[] = [];
  let onOpen: OpenHandler | undefined;
  let onNavigate: NavigateHandler | undefined;
  class BrowserWindow {
    webContents = {
      setWindowOpenHandler: (h: OpenHandler) => {
        onOpen = h;
      },
      on: (_event: 'will-navigate', h: NavigateHandler) => {
        onNavigate = h;
      },
    };
    constructor(readonly options: BrowserWindowOptions) {}
    loadURL = async () => undefined;
    show() {}
    focus() {}
    restore() {}
    on() {}
    isMinimized = () => false;
    isDestroyed = () => false;
  }
  const electron = {
    BrowserWindow,
    shell: {
      openExternal: async (url: string) => {
        opened.push(url);
      },
      openPath: async () => '',
    },
  } as unknown as ElectronMain;
  createMainWindow(electron, '/preload.cjs', origin, () => origin);
  const navigate = (url: string) => {
    let prevented = false;
    registered(onNavigate, 'will-navigate')(
      {
        preventDefault: () => {
          prevented = true;
        },
      },
      url,
    );
    return prevented;
  };
  return { opened, open: (url: string) => registered(onOpen, 'window-open')({ url }), navigate };
}

// Links and navigations a page can trigger that must never reach the operating system's handlers.
const HOSTILE = [
  'file:///etc/passwd',
  'javascript:alert(1)',
  'smb://attacker.example/share/payload.exe',
  'ms-msdt:/id PCWDiagnostic /skip force',
  'vscode://file/etc/passwd',
  'data:text/html,<script>alert(1)</script>',
  'mailto:someone@example.org',
  'not a url',
  '',
];

describe('desktop shell: links that leave the app', () => {
  it('opens http(s) links from window.open in the browser and denies the window', () => {
    const h = harness();
    expect(h.open('https://vagrantcloud.com/bento')).toEqual({ action: 'deny' });
    expect(h.open('http://boxes.lan:4780/lab/base.box')).toEqual({ action: 'deny' });
    expect(h.opened).toEqual(['https://vagrantcloud.com/bento', 'http://boxes.lan:4780/lab/base.box']);
  });

  it('never hands another scheme to the operating system, from window.open or a navigation', () => {
    const h = harness();
    for (const url of HOSTILE) {
      expect(h.open(url), url).toEqual({ action: 'deny' });
      expect(h.navigate(url), url).toBe(true);
    }
    expect(h.opened).toEqual([]);
  });

  it('keeps navigations on the daemon inside the window and sends other web pages to the browser', () => {
    const h = harness();
    expect(h.navigate('http://127.0.0.1:4780/ui/boxes')).toBe(false);
    expect(h.navigate('https://example.org/docs')).toBe(true);
    expect(h.opened).toEqual(['https://example.org/docs']);
  });

  it('isExternalWebUrl: http and https only, whatever the case', () => {
    expect(['https://a.example/', 'HTTP://a.example/x', 'http://[::1]:4780/'].map(isExternalWebUrl)).toEqual([
      true,
      true,
      true,
    ]);
    expect(HOSTILE.map(isExternalWebUrl)).toEqual(HOSTILE.map(() => false));
  });
});
