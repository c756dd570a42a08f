import { hostname as osHostname, networkInterfaces } from 'node:os';
import type { Config } from '../config';
import { normalizeHost } from '../lib/host-names';

/**
 * The names this daemon is reached by: the one list the Host guard answers
 * (http/guards/hosts.ts) and `--tls auto`'s certificate names (tls/names.ts), and what its CA's
 * name constraints start from (tls/name-constraints.ts). Pure but for `systemHostSources`.
 */

/** What decides the names the daemon is reached by. */
export type NameSettings = Pick<Config, 'host' | 'publicUrl' | 'allowedHosts'>;

/** Where the machine's own names come from; tests pass fixed ones. */
export interface HostSources {
  /** The machine's interface addresses (read again when a Host is not known, as DHCP may change them). */
  interfaceAddresses(): string[];
  /** The machine's host name (`lab`, or a full domain name: `lab.example.com`). */
  machineName(): string;
}

export const systemHostSources: HostSources = {
  interfaceAddresses: () =>
    Object.values(networkInterfaces())
      .flat()
      .flatMap((i) => (i ? [i.address] : [])),
  machineName: () => osHostname(),
};

/** The loopback names and addresses, answered whatever the daemon listens on. */
export const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '::1'] as const;

/** A listen address that means every interface (`0.0.0.0`, `::`, `[::]`). */
export const listensOnAll = (host: string): boolean => ['0.0.0.0', '::', ''].includes(normalizeHost(host));

/**
 * The machine's names for LAN clients (`http://lab:4780`, `http://lab.local:4780`): its host name
 * as it is set, and its mDNS name, which is the first label's (`lab.example.com` answers mDNS as
 * `lab.local`, never `lab.example.com.local`).
 */
export function machineNames(hostname: string): string[] {
  const full = normalizeHost(hostname);
  if (!full) return [];
  return [full, `${full.split('.')[0]}.local`];
}

/**
 * What `--allowed-hosts` entries mean (config.ts): a name or address, `.domain` for that domain
 * and its subdomains, `*` for any host.
 */
export function allowedHostEntries(entries: readonly string[]): { exact: string[]; domains: string[]; any: boolean } {
  const out = { exact: [] as string[], domains: [] as string[], any: false };
  for (const entry of entries) {
    if (entry === '*') out.any = true;
    else if (entry.startsWith('.')) out.domains.push(normalizeHost(entry.slice(1)));
    else out.exact.push(normalizeHost(entry));
  }
  return out;
}

export interface OwnNames {
  /**
   * The names and addresses answered as they are, the public URL's host first: the loopback
   * names, the listen address, or, listening on every interface, every interface address and the
   * machine's names; `--allowed-hosts`' names.
   */
  exact: string[];
  /** `--allowed-hosts`' `.domain` entries: each domain and every name under it. */
  domains: string[];
  /** `--allowed-hosts *`: any name. */
  any: boolean;
  /** Listening on every interface: the machine's addresses may change, so they are read again. */
  allInterfaces: boolean;
}

/** The names this daemon is reached by, from its settings and the machine's names and addresses now. */
export function ownNames(settings: NameSettings, sources: HostSources): OwnNames {
  const exact: string[] = [];
  const add = (n: string | undefined) => {
    const v = n ? normalizeHost(n) : '';
    if (v && !exact.includes(v)) exact.push(v);
  };
  add(settings.publicUrl ? new URL(settings.publicUrl).hostname : undefined);
  const allInterfaces = listensOnAll(settings.host);
  if (allInterfaces) for (const n of machineNames(sources.machineName())) add(n);
  add('localhost');
  if (allInterfaces) for (const a of sources.interfaceAddresses()) add(a);
  else add(settings.host);
  for (const n of LOOPBACK_NAMES) add(n);
  const entries = allowedHostEntries(settings.allowedHosts);
  for (const n of entries.exact) add(n);
  return { exact, domains: entries.domains, any: entries.any, allInterfaces };
}
