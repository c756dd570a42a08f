import { z } from 'zod';
import { DesktopInfo, DesktopSettings, IPC, Welcome, type DesktopBridge } from '../../daemon/src/contract/ipc';
import type { ElectronPreload } from './electron-api';

// Sandboxed preloads may require only a few built-ins such as 'electron'; esbuild bundles the rest
// (zod and the contract) into main/dist/preload.cjs. See electron-api.ts for why this is require().
const { contextBridge, ipcRenderer } = require('electron') as ElectronPreload;

const bridge: DesktopBridge = {
  info: async () => DesktopInfo.parse(await ipcRenderer.invoke(IPC.info)),
  saveSettings: async (settings) =>
    DesktopInfo.parse(await ipcRenderer.invoke(IPC.saveSettings, DesktopSettings.parse(settings))),
  openDataDir: async () => {
    z.undefined().parse(await ipcRenderer.invoke(IPC.openDataDir));
  },
  welcome: async () => Welcome.parse(await ipcRenderer.invoke(IPC.welcome)),
  dismissWelcome: async () => {
    z.undefined().parse(await ipcRenderer.invoke(IPC.dismissWelcome));
  },
};

contextBridge.exposeInMainWorld('boxyard', bridge);
