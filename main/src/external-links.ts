import type { ElectronMain } from './electron-api';

const EXTERNAL_SCHEMES = new Set(['http:', 'https:']);

/**
 * Whether a URL may be handed to the operating system. Only web links: `file:`, `smb:`,
 * `javascript:`, custom app handlers (`ms-msdt:`, `vscode:`…) and anything unparseable can run
 * or open local things, so a link in a box's description or an upstream's page never gets there.
 */
export function isExternalWebUrl(url: string): boolean {
  try {
    return EXTERNAL_SCHEMES.has(new URL(url).protocol);
  } catch {
    return false;
  }
}

/** Opens http(s) links in the user's browser and drops every other scheme; says which it did. */
export function openExternalWebUrl(shell: ElectronMain['shell'], url: string): boolean {
  if (!isExternalWebUrl(url)) return false;
  void shell.openExternal(url);
  return true;
}
