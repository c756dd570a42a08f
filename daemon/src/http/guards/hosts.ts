import { hostname as osHostname, networkInterfaces } from 'node:os';
import type { Context } from 'koa';
import type { Config } from '../../config';
import { MisdirectedError } from '../../lib/errors';
import { normalizeHost as normalize } from '../../lib/host-names';

/** Where the daemon's own names come from; tests pass fixed ones. */
export interface HostSources {
  /** The machine's interface addresses (read again when a Host is not known, as DHCP may change them). */
  interfaceAddresses(): string[];
  /** The machine's name, for LAN clients that use it (`http://labhost:4780`, `http://labhost.local:4780`). */
  machineName(): string;
}

export const systemHostSources: HostSources = {
  interfaceAddresses: () => Object.values(networkInterfaces()).flat().flatMap((i) => (i ? [i.address] : [])),
  machineName: () => osHostname(),
};

const WILDCARD_BINDS = new Set(['0.0.0.0', '::', '[::]', '']);
const LOOPBACK = ['localhost', '127.0.0.1', '::1'];

/**
 * What `--allowed-hosts` entries mean (config.ts): a name or address, `.domain` for that domain
 * and its subdomains, `*` for any host. Read here and by `--tls auto`'s CA (tls/name-constraints.ts),
 * which certifies the same names.
 */
export function allowedHostEntries(entries: readonly string[]): { exact: string[]; domains: string[]; any: boolean } {
  const out = { exact: [] as string[], domains: [] as string[], any: false };
  for (const entry of entries) {
    if (entry === '*') out.any = true;
    else if (entry.startsWith('.')) out.domains.push(normalize(entry.slice(1)));
    else out.exact.push(normalize(entry));
  }
  return out;
}

/** The host name of a `Host` header (`name`, `name:port`, `[v6]`, `[v6]:port`), or undefined when it is malformed. */
export function hostOfHeader(header: string): string | undefined {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^\s[\]:/@\\]+)(?::(\d{1,5}))?$/.exec(header);
  return m ? normalize(m[1]) : undefined;
}

/**
 * The Host names this daemon answers to (issue 10, DNS rebinding): a page on an attacker's domain
 * that rebinds its name to 127.0.0.1 or a LAN address reaches the daemon with its own name as Host,
 * and is refused. Allowed: the public URL's host, the address the daemon listens on (every
 * interface address and the machine's name when it listens on all of them), the loopback names,
 * and `allowedHosts` from the config (`.domain` for a domain and its subdomains, `*` for any).
 * Ports are not compared: a port-forward (`docker -p 8080:4780`) changes the port, not the name.
 */
export class AllowedHosts {
  private readonly exact = new Set<string>();
  private readonly suffixes: string[] = [];
  private readonly any: boolean;
  private readonly allInterfaces: boolean;

  constructor(config: Pick<Config, 'host' | 'publicUrl' | 'allowedHosts'>, private readonly sources: HostSources = systemHostSources) {
    for (const name of LOOPBACK) this.exact.add(name);
    if (config.publicUrl) this.exact.add(normalize(new URL(config.publicUrl).hostname));
    this.allInterfaces = WILDCARD_BINDS.has(config.host.trim());
    if (!this.allInterfaces) this.exact.add(normalize(config.host));
    else this.addMachine();
    const entries = allowedHostEntries(config.allowedHosts);
    this.any = entries.any;
    for (const name of entries.exact) this.exact.add(name);
    this.suffixes.push(...entries.domains);
  }

  private addMachine(): void {
    for (const a of this.sources.interfaceAddresses()) this.exact.add(normalize(a));
    const name = normalize(this.sources.machineName());
    if (name) {
      this.exact.add(name);
      this.exact.add(`${name}.local`);
    }
  }

  allows(host: string): boolean {
    if (this.any || this.exact.has(host)) return true;
    if (this.suffixes.some((d) => host === d || host.endsWith(`.${d}`))) return true;
    if (!this.allInterfaces) return false;
    // Listening on every interface: an address may have been added since start.
    this.addMachine();
    return this.exact.has(host);
  }
}

/**
 * Refuses a request whose Host header is not an allowed one with 421 Misdirected Request, before
 * any route (`/healthz` and the UI included) runs: a check the error middleware makes first. A request without a Host header (HTTP/1.0) was
 * not sent by a browser and names no host to reflect: it passes.
 */
export function hostGuard(allowed: AllowedHosts): (ctx: Context) => void {
  // Every request passes here: Host headers already allowed are remembered (a few per daemon).
  const known = new Set<string>();
  return (ctx) => {
    const header = ctx.get('host');
    if (header === '' || known.has(header)) return;
    const host = hostOfHeader(header);
    if (host !== undefined && allowed.allows(host)) {
      if (known.size < 256) known.add(header);
      return;
    }
    throw new MisdirectedError(
      `This Boxyard daemon does not answer to the host ${JSON.stringify(header.slice(0, 300))}. Use its public URL or an address it listens on, ` +
        'or add the name to BOXYARD_ALLOWED_HOSTS (--allowed-hosts).',
    );
  };
}
