import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { promisify } from 'node:util';
import { LRUCache } from 'lru-cache';
import { caBundle } from '../../tls/client-fetch';
import { AddressNotAllowedError } from '../../lib/errors';
import { loadUndici } from '../../lib/lazy-modules';
import { checkHost, checkLiteral, type AddressRules, type Resolve } from '../../lib/address-policy';

const lookupAll = promisify(dnsLookup);
const systemResolve: Resolve = (host) => lookupAll(host, { all: true }) as Promise<LookupAddress[]>;

type LookupCallback = (err: Error | null, address: string | LookupAddress[], family?: number) => void;
type Undici = typeof import('undici');
type LoadedAgent = Promise<{ undici: Undici; agent: InstanceType<Undici['Agent']> }>;

/** How one request connects: limited to allowed addresses, and with a CA of its own to trust. */
export interface Reach {
  restricted: boolean;
  ca: string | null;
}

/**
 * What `reachFor` needs of an upstream: its address and CA; `restricted` (1: a non-administrator
 * chose the address) and whether its owner is an administrator now (null: no owner, the daemon's own).
 */
export interface UpstreamReach {
  url: string;
  ca: string | null;
  restricted: number;
  owner_admin: number | null;
}

/**
 * The one outbound rule. An administrator's upstream (and the daemon's own, `--upstream`) may
 * reach its own configured origin (scheme, host and port) whatever its address: the
 * administrator chose it. Everything else (a plain user's upstream, and whatever an upstream
 * names: the files of its catalogs, its redirect targets) is held to the address policy.
 */
export function reachFor(u: UpstreamReach, url: string): Reach {
  const chosenByAnAdministrator = u.restricted === 0 && u.owner_admin !== 0;
  return { restricted: !chosenByAnAdministrator || new URL(url).origin !== new URL(u.url).origin, ca: u.ca };
}

/**
 * Opens the daemon's outbound HTTP connections to upstreams. A restricted request (`reachFor`)
 * connects through an agent whose DNS lookup checks every address a name resolves to
 * (address-policy.ts) and hands the connection exactly those: nothing is looked up twice, so a
 * name cannot rebind between the check and the connection. Address literals, which are never
 * looked up, are checked before each request, and the caller sends every redirect hop through
 * here. An unrestricted one (an administrator's upstream, at its own origin) uses Node's fetch,
 * or an agent that trusts the upstream's own CA besides the system's.
 */
export class Outbound {
  /**
   * One agent (a connection pool) per kind of reach; upstreams with the same CA share one. A few
   * upstreams at most: a CA changed many times pushes out the agent used longest ago, whose
   * connections close once their requests are done.
   */
  private readonly agents: LRUCache<string, LoadedAgent>;

  constructor(
    private readonly rules: () => Promise<AddressRules>,
    private readonly resolve: Resolve = systemResolve,
    agentsKept = 64,
  ) {
    this.agents = new LRUCache<string, LoadedAgent>({
      max: agentsKept,
      dispose: (loaded) => void loaded.then(({ agent }) => agent.close()).catch(() => undefined),
    });
  }

  async fetch(url: string, init: RequestInit, reach: Reach): Promise<Response> {
    if (!reach.restricted && !reach.ca) return fetch(url, init);
    if (reach.restricted) checkLiteral(new URL(url).hostname, await this.rules());
    const key = `${reach.restricted}:${reach.ca ?? ''}`;
    let loaded = this.agents.get(key);
    if (!loaded) {
      loaded = this.load(reach);
      this.agents.set(key, loaded);
    }
    const { undici, agent } = await loaded;
    try {
      return (await undici.fetch(url, { ...(init as object), dispatcher: agent })) as unknown as Response;
    } catch (err) {
      // The lookup's refusal arrives as fetch's "fetch failed" with it as the cause.
      const cause = (err as { cause?: unknown }).cause;
      throw cause instanceof AddressNotAllowedError ? cause : err;
    }
  }

  /**
   * Whether a non-administrator may point an upstream at `url` (asked when it is set): refused
   * addresses fail; a name that does not resolve now is checked when it is used.
   */
  async check(url: string): Promise<void> {
    try {
      await checkHost(new URL(url).hostname, await this.rules(), this.resolve);
    } catch (err) {
      // The client gave this URL: its field is named (a 422, not the gateway's 502).
      if (err instanceof AddressNotAllowedError) throw new AddressNotAllowedError(err.message, { field: 'url' });
    }
  }

  /** net.connect's lookup option: every address checked, and only those used. */
  lookup = (host: string, options: { all?: boolean }, callback: LookupCallback): void => {
    void (async () => checkHost(host, await this.rules(), this.resolve))().then(
      (addresses) => {
        if (options.all) callback(null, addresses);
        else callback(null, addresses[0].address, addresses[0].family);
      },
      (err: Error) => callback(err, []),
    );
  };

  private async load(reach: Reach) {
    const undici = await loadUndici();
    const connect = {
      ...(reach.restricted ? { lookup: this.lookup as never } : {}),
      ...(reach.ca ? { ca: caBundle(reach.ca) } : {}),
    };
    return { undici, agent: new undici.Agent({ connect }) };
  }
}
