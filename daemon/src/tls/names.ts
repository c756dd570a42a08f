import { isIP } from 'node:net';
import { ownNames, systemHostSources, type HostSources, type NameSettings } from '../http/own-names';

/**
 * The names `--tls auto`'s certificate carries: the daemon's own names (http/own-names.ts), the
 * very list its Host guard answers, less IPv6 link-local addresses (a certificate cannot name
 * their zone). `--allowed-hosts` domains are not names but subtrees: a certificate would need a
 * wildcard for them.
 */
export function serverNames(settings: NameSettings, sources: HostSources = systemHostSources): string[] {
  return ownNames(settings, sources).exact.filter((n) => !(isIP(n) === 6 && n.startsWith('fe80')));
}
