import { parseAddress } from '../lib/special-addresses';
import { ownNames, systemHostSources, type HostSources, type NameSettings } from '../http/own-names';

/**
 * The names `--tls auto`'s certificate carries: the daemon's own names (http/own-names.ts), the
 * very list its Host guard answers, less IPv6 link-local addresses (a certificate cannot name
 * their zone). `--allowed-hosts` domains are not names but subtrees: a certificate would need a
 * wildcard for them.
 */
export function serverNames(settings: NameSettings, sources: HostSources = systemHostSources): string[] {
  return ownNames(settings, sources).exact.filter((n) => !isIpv6LinkLocal(n));
}

/** Within fe80::/10, fe80:: to febf:ffff:…, whatever its zone (a prefix test on `fe80` missed fe90:: to febf::). */
function isIpv6LinkLocal(name: string): boolean {
  const ip = parseAddress(name);
  return ip?.kind() === 'ipv6' && ip.range() === 'linkLocal';
}
