import { isIP } from 'node:net';
import type ipaddr from 'ipaddr.js';
import { parseAddress } from './special-addresses';

/**
 * A host name or address as the daemon compares them (a Host header, `--host`, `--allowed-hosts`,
 * a certificate's names): lower case, no brackets around an IPv6 address, no zone, no trailing dot,
 * an address as Node and certificates print it alike (`0:0:0:0:0:0:0:1` → `::1`, IPv4-mapped →
 * IPv4). Not for connecting: a link-local address needs its zone (lib/address-policy.ts keeps it).
 */
export function normalizeHost(name: string): string {
  const n = name
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/%.*$/, '')
    .replace(/\.$/, '');
  // parseAddress, not ipaddr.process: that reads `::127.0.0.1` (IPv4-compatible) as IPv4-mapped.
  const ip = isIP(n) ? parseAddress(n) : null;
  if (!ip) return n;
  return (
    ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress() ? (ip as ipaddr.IPv6).toIPv4Address() : ip
  ).toString();
}

/**
 * Whether a host is this machine's loopback, however it is written: `localhost`, any address of
 * 127.0.0.0/8, `::1` (`[::1]`, `0:0:0:0:0:0:0:1`) and 127/8 mapped into IPv6 (`::ffff:127.0.0.1`,
 * as a daemon listening on `::` sees an IPv4 client). A name that merely starts with `127.` is not.
 */
export function isLoopback(host: string): boolean {
  const h = normalizeHost(host);
  if (h === 'localhost') return true;
  let ip = parseAddress(h);
  if (ip?.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
  return ip?.range() === 'loopback';
}
