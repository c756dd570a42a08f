import { isIP } from 'node:net';
import type ipaddr from 'ipaddr.js';
import { parseAddress } from './special-addresses';

/** A host as a URL writes it, without the brackets around an IPv6 address (`[::1]` → `::1`); all else kept. */
export const unbracketed = (host: string): string => host.replace(/^\[(.*)\]$/, '$1');

/** A host to write into a URL: an IPv6 address in brackets (`::1` → `[::1]`), once; a name or IPv4 address as it is. */
export function urlHost(host: string): string {
  const h = unbracketed(host);
  return h.includes(':') ? `[${h}]` : h;
}

/** An IPv4-mapped IPv6 address (`::ffff:10.0.0.1`) as the IPv4 address it carries; any other address as it is. */
export function unmapped(ip: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | ipaddr.IPv6 {
  return ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress() ? (ip as ipaddr.IPv6).toIPv4Address() : ip;
}

/**
 * A host name or address as the daemon compares them (a Host header, `--host`, `--allowed-hosts`,
 * a certificate's names): lower case, no brackets around an IPv6 address, no zone, no trailing dot,
 * an address as Node and certificates print it alike (`0:0:0:0:0:0:0:1` → `::1`, IPv4-mapped →
 * IPv4). Not for connecting: a link-local address needs its zone (lib/address-policy.ts keeps it).
 */
export function normalizeHost(name: string): string {
  const n = unbracketed(name.trim().toLowerCase()).replace(/%.*$/, '').replace(/\.$/, '');
  // parseAddress, not ipaddr.process: that reads `::127.0.0.1` (IPv4-compatible) as IPv4-mapped.
  const ip = isIP(n) ? parseAddress(n) : null;
  return ip ? unmapped(ip).toString() : n;
}

/**
 * Whether a host is this machine's loopback, however it is written: `localhost`, any address of
 * 127.0.0.0/8, `::1` (`[::1]`, `0:0:0:0:0:0:0:1`) and 127/8 mapped into IPv6 (`::ffff:127.0.0.1`,
 * as a daemon listening on `::` sees an IPv4 client). A name that merely starts with `127.` is not.
 */
export function isLoopback(host: string): boolean {
  const h = normalizeHost(host);
  if (h === 'localhost') return true;
  // normalizeHost wrote an IPv4-mapped address as its IPv4 address.
  return parseAddress(h)?.range() === 'loopback';
}
