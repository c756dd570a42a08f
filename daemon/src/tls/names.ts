import { hostname as osHostname, networkInterfaces } from 'node:os';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { Config } from '../config';
import { allowedHostEntries } from '../http/guards/hosts';

/** What decides the names the daemon is reached by. */
export type NameSettings = Pick<Config, 'host' | 'publicUrl' | 'allowedHosts'>;

/** An address as certificates and Node print it differently (`::1`, `0:0:0:0:0:0:0:1`): one form. */
export function normalName(name: string): string {
  const n = name.replace(/^\[|\]$/g, '').toLowerCase();
  return isIP(n) ? ipaddr.process(n).toString() : n;
}

/**
 * The names and addresses LAN clients reach the daemon by, for `--tls auto`'s certificate: the
 * listen address (every interface's address when it is 0.0.0.0 or ::), the host name and
 * `HOST.local` (mDNS), `localhost` and the loopback addresses, the public URL's host and the
 * names and addresses `--allowed-hosts` lists one by one. IPv6 link-local addresses are left out:
 * a certificate cannot name their zone.
 */
export function serverNames(
  settings: NameSettings,
  nets: ReturnType<typeof networkInterfaces> = networkInterfaces(),
  hostname: string = osHostname(),
): string[] {
  const { host, publicUrl } = settings;
  const names: string[] = [];
  const add = (n: string | undefined) => {
    if (!n) return;
    const v = normalName(n);
    if (v && !names.includes(v) && !(isIP(v) === 6 && v.startsWith('fe80'))) names.push(v);
  };
  const short = hostname.split('.')[0].toLowerCase();
  add(publicUrl ? new URL(publicUrl).hostname : undefined);
  add(hostname);
  add(`${short}.local`);
  add('localhost');
  const all = host === '0.0.0.0' || host === '::';
  if (all) for (const list of Object.values(nets)) for (const a of list ?? []) add(a.address);
  else add(host);
  add('127.0.0.1');
  add('::1');
  for (const n of allowedHostEntries(settings.allowedHosts).exact) add(n);
  return names;
}
