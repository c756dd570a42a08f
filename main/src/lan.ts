import type { NetworkInterfaceInfo } from 'node:os';

/**
 * The URLs colleagues use to reach this machine's daemon: one per external IPv4 address (what a
 * LAN's DHCP hands out; link-local and loopback addresses are no use to another machine). None
 * while LAN access is off, since the daemon then listens on 127.0.0.1 only.
 */
export function lanUrls(lanAccess: boolean, port: number, interfaces: NodeJS.Dict<NetworkInterfaceInfo[]>): string[] {
  if (!lanAccess) return [];
  return Object.values(interfaces).flatMap((list) => list ?? [])
    .filter((a) => a.family === 'IPv4' && !a.internal && !a.address.startsWith('169.254.'))
    .map((a) => `http://${a.address}:${port}`);
}
