import { describe, expect, it } from 'vitest';
import { IPC, type DesktopInfo, type DesktopSettings } from '../../daemon/src/contract/ipc';
import type { ElectronMain, IpcMainInvokeEventLike } from '../../main/src/electron-api';
import { registerIpc } from '../../main/src/ipc';

type Handler = (event: IpcMainInvokeEventLike, ...args: unknown[]) => unknown;

/** Only ipcMain is used by registerIpc; the handlers are captured and called as Electron would. */
function harness(origin: string | null = 'http://127.0.0.1:4780') {
  const handlers = new Map<string, Handler>();
  const electron = {
    ipcMain: { handle: (channel: string, h: Handler) => void handlers.set(channel, h) },
  } as unknown as ElectronMain;
  let settings: DesktopSettings = { lanAccess: false, lanHttps: true, port: 4780 };
  const saved: DesktopSettings[] = [];
  const info = (): DesktopInfo => ({
    version: '0.1.0',
    dataDir: '/data',
    url: origin,
    state: 'running',
    lastError: null,
    settings,
    lanUrls: [],
    caFingerprint: null,
  });
  let welcome: { username: string; password: string } | null = { username: 'admin', password: 'generated-password-1' };
  registerIpc(electron, {
    info,
    saveSettings: async (s) => {
      saved.push(s);
      settings = s;
      return info();
    },
    openDataDir: async () => undefined,
    welcome: () => welcome,
    dismissWelcome: () => {
      welcome = null;
    },
    trustedOrigin: () => origin,
  });
  const call = (channel: string, from: string, ...args: unknown[]) =>
    Promise.resolve().then(() => {
      const handler = handlers.get(channel);
      if (!handler) throw new Error(`no handler for the channel ${channel}`);
      return handler({ senderFrame: { url: from } }, ...args);
    });
  return { handlers, call, saved };
}

describe('desktop IPC bridge (main side)', () => {
  it('registers every channel of the contract', () => {
    expect([...harness().handlers.keys()].sort()).toEqual(Object.values(IPC).sort());
  });

  it('answers pages from the daemon and checks what comes back', async () => {
    const h = harness();
    await expect(h.call(IPC.info, 'http://127.0.0.1:4780/ui/settings')).resolves.toMatchObject({
      state: 'running',
      settings: { port: 4780 },
    });
    await expect(
      h.call(IPC.saveSettings, 'http://127.0.0.1:4780/ui/settings', { lanAccess: true, lanHttps: false, port: 8080 }),
    ).resolves.toMatchObject({ settings: { lanAccess: true, lanHttps: false, port: 8080 } });
    // Settings from before the HTTPS switch: HTTPS is on.
    await h.call(IPC.saveSettings, 'http://127.0.0.1:4780/ui/settings', { lanAccess: true, port: 8080 });
    expect(h.saved).toEqual([
      { lanAccess: true, lanHttps: false, port: 8080 },
      { lanAccess: true, lanHttps: true, port: 8080 },
    ]);
  });

  it('hands the first run password to the daemon page once: dismissed, it is gone', async () => {
    const h = harness();
    await expect(h.call(IPC.welcome, 'https://evil.example/')).rejects.toThrow(
      /only answers pages from the Boxyard daemon/,
    );
    await expect(h.call(IPC.welcome, 'http://127.0.0.1:4780/ui/')).resolves.toEqual({
      username: 'admin',
      password: 'generated-password-1',
    });
    await expect(h.call(IPC.dismissWelcome, 'http://127.0.0.1:4780/ui/')).resolves.toBeUndefined();
    await expect(h.call(IPC.welcome, 'http://127.0.0.1:4780/ui/')).resolves.toBeNull();
  });

  it('refuses other origins, and anything while the daemon is down', async () => {
    await expect(harness().call(IPC.info, 'https://evil.example/')).rejects.toThrow(
      /only answers pages from the Boxyard daemon/,
    );
    await expect(harness(null).call(IPC.info, 'http://127.0.0.1:4780/ui/')).rejects.toThrow(/not running/);
  });

  it('rejects malformed settings without saving them', async () => {
    const h = harness();
    for (const bad of [
      { lanAccess: 'yes', port: 80 },
      { lanAccess: true, lanHttps: 'no', port: 80 },
      { lanAccess: true, port: 80, tlsCert: '/a.pem' },
      { lanAccess: true, port: 443, acmeUrl: 'http://boxes.example.org' },
      { lanAccess: true, port: 443, acmeUrl: 'https://boxes.example.org', tlsCert: '/a.pem', tlsKey: '/a-key.pem' },
      { lanAccess: true, port: 0 },
      { lanAccess: true, port: 70000 },
      JSON.parse('{"__proto__":{"port":80},"lanAccess":true}'),
      null,
    ]) {
      await expect(h.call(IPC.saveSettings, 'http://127.0.0.1:4780/ui/', bad)).rejects.toThrow();
    }
    expect(h.saved).toEqual([]);
  });
});
