import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { AddressNotAllowedError } from './errors';
import { isPublicAddress, parseAddress } from './special-addresses';
import { normalizeHost, unbracketed, unmapped } from './host-names';

/**
 * The one outbound policy (server-side request forgery; Gitea's migrations settings are the
 * model): which hosts the daemon may connect to on someone else's word. Public unicast addresses
 * (lib/special-addresses.ts: outside IANA's special-purpose registries), and whatever an
 * administrator lists in `mirror_allowed_hosts`: an address (`192.168.1.20`), a network
 * (`192.168.1.0/24`, `fd00::/8`), a host name (`boxyard.lab`) or every name under a domain
 * (`*.lab`). An allowed name is trusted with whatever it resolves to. What the policy applies to
 * is mirror/upstreams/outbound.ts's to decide: everything but an administrator's upstream's own
 * origin.
 */
export interface AddressRules {
  /** The administrator's list, as stored; entries that parse as nothing match nothing. */
  allowed: readonly string[];
}

/** One entry of `mirror_allowed_hosts`: whether it is something the policy understands. */
export function isAllowedHostEntry(entry: string): boolean {
  const e = entry.trim();
  if (isIP(e)) return true;
  if (e.includes('/')) {
    try {
      ipaddr.parseCIDR(e);
      return true;
    } catch {
      return false;
    }
  }
  return /^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i.test(e);
}

/** Whether a host name (not an address) is one the administrator allowed. */
export function nameAllowed(host: string, rules: AddressRules): boolean {
  const name = normalizeHost(host);
  return rules.allowed.some((raw) => {
    const e = raw.trim().toLowerCase();
    if (e.startsWith('*.')) return name.endsWith(e.slice(1));
    return !isIP(e) && !e.includes('/') && e === name;
  });
}

/** Whether an address is public unicast or inside an allowed address or network. */
export function addressAllowed(address: string, rules: AddressRules): boolean {
  // parseAddress takes the brackets and the zone off itself.
  const ip = parseAddress(address);
  if (!ip) return false;
  if (isPublicAddress(ip)) return true;
  // An allowed IPv4 network covers its addresses written as IPv4-mapped IPv6 too: both forms are matched.
  const forms = [ip, unmapped(ip)];
  return rules.allowed.some((raw) => {
    const e = raw.trim();
    try {
      if (!e.includes('/')) {
        const entry = parseAddress(e);
        return entry !== null && forms.some((a) => a.kind() === entry.kind() && a.toString() === entry.toString());
      }
      const [written, writtenBits] = ipaddr.parseCIDR(e);
      // An IPv4-mapped network (`::ffff:172.16.0.0/108`) is the IPv4 network it carries.
      const net = unmapped(written);
      const bits = net === written ? writtenBits : writtenBits - 96;
      return forms.some((a) => a.kind() === net.kind() && a.match(net, bits));
    } catch {
      return false;
    }
  });
}

/**
 * The refusal. It names the host as given and the setting to change, never what a name resolved
 * to (that would map the lab's DNS for whoever asks), and is the same whether or not anything
 * answers there: nothing was asked.
 */
export function refused(host: string): AddressNotAllowedError {
  return new AddressNotAllowedError(
    `${host} is not a public address. Boxyard connects to it only for an administrator's upstream at that address, or when an administrator allows it in Settings (mirror_allowed_hosts).`,
  );
}

/** Throws when `host`, an address literal, may not be reached; names are checked as they resolve. */
export function checkLiteral(host: string, rules: AddressRules): void {
  const h = unbracketed(host);
  if (isIP(h) && !addressAllowed(h, rules)) throw refused(host);
}

export type Resolve = (host: string) => Promise<Array<{ address: string; family: number }>>;

/**
 * Checks a host as a connection would reach it: an address literal itself, an allowed name as
 * it is, any other name by every address it resolves to (one refused address refuses it all).
 * Answers the addresses checked, which the connection then uses (no second lookup to rebind).
 */
export async function checkHost(
  host: string,
  rules: AddressRules,
  resolve: Resolve,
): Promise<Array<{ address: string; family: number }>> {
  // Only the brackets come off: the connection is given the address as written, zone included.
  const h = unbracketed(host);
  const family = isIP(h);
  if (family) {
    checkLiteral(h, rules);
    return [{ address: h, family }];
  }
  const addresses = await resolve(h);
  if (nameAllowed(h, rules)) return addresses;
  for (const a of addresses) if (!addressAllowed(a.address, rules)) throw refused(host);
  return addresses;
}
