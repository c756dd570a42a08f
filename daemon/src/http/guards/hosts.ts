import { MisdirectedError } from '../../lib/errors';
import { normalizeHost } from '../../lib/host-names';
import { ownNames, systemHostSources, type HostSources, type NameSettings } from '../own-names';
import type { RequestCheck } from '../errors/middleware';

/** The host name of a `Host` header (`name`, `name:port`, `[v6]`, `[v6]:port`), or undefined when it is malformed. */
export function hostOfHeader(header: string): string | undefined {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^\s[\]:/@\\]+)(?::(\d{1,5}))?$/.exec(header);
  return m ? normalizeHost(m[1]) : undefined;
}

/**
 * The Host names this daemon answers to (DNS rebinding): a page on an attacker's domain
 * that rebinds its name to 127.0.0.1 or a LAN address reaches the daemon with its own name as Host,
 * and is refused. Allowed: the daemon's own names (http/own-names.ts, which `--tls auto`'s
 * certificate names too), `--allowed-hosts` domains with their subdomains, any host for `*`.
 * Ports are not compared: a port-forward (`docker -p 8080:4780`) changes the port, not the name.
 */
export class AllowedHosts {
  private exact: Set<string>;
  private readonly domains: string[];
  private readonly any: boolean;
  private readonly allInterfaces: boolean;

  constructor(
    private readonly settings: NameSettings,
    private readonly sources: HostSources = systemHostSources,
  ) {
    const names = ownNames(settings, sources);
    this.exact = new Set(names.exact);
    this.domains = names.domains;
    this.any = names.any;
    this.allInterfaces = names.allInterfaces;
  }

  allows(host: string): boolean {
    if (this.any || this.exact.has(host)) return true;
    if (this.domains.some((d) => host === d || host.endsWith(`.${d}`))) return true;
    if (!this.allInterfaces) return false;
    // Listening on every interface: an address may have been added since start.
    for (const name of ownNames(this.settings, this.sources).exact) this.exact.add(name);
    return this.exact.has(host);
  }
}

/**
 * Refuses a request whose Host header is not an allowed one with 421 Misdirected Request, before
 * any route (`/healthz` and the UI included) runs: a check the error middleware makes first. A request without a Host
 * header (HTTP/1.0) was not sent by a browser and names no host to reflect: it passes.
 */
export function hostGuard(allowed: AllowedHosts): RequestCheck {
  // Every request passes here: Host headers already allowed are remembered (a few per daemon).
  const known = new Set<string>();
  return (ctx) => {
    const header = ctx.get('host');
    if (header === '' || known.has(header)) return undefined;
    const host = hostOfHeader(header);
    if (host !== undefined && allowed.allows(host)) {
      if (known.size < 256) known.add(header);
      return undefined;
    }
    throw new MisdirectedError(
      `This Boxyard daemon does not answer to the host ${JSON.stringify(header.slice(0, 300))}. Use its public URL or an address it listens on, ` +
        'or add the name to BOXYARD_ALLOWED_HOSTS (--allowed-hosts).',
    );
  };
}
