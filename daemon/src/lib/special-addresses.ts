import ipaddr from 'ipaddr.js';

/**
 * The addresses no upstream reaches on someone else's word: IANA's special-purpose address
 * registries (iana-ipv4-special-registry, iana-ipv6-special-registry, as of 2025), written out
 * here block by block rather than taken from a library's idea of "unicast". An IPv4 address is
 * public when it is in none of the IPv4 blocks (nor multicast or the limited broadcast address);
 * an IPv6 address only inside 2000::/3 and in none of its special blocks. IPv6 forms that carry
 * an IPv4 address a router or tunnel will reach (IPv4-mapped, NAT64's well-known prefix, 6to4)
 * are judged by that IPv4 address; Teredo and IPv4-compatible forms are refused outright.
 */
const IPV4_SPECIAL = [
  '0.0.0.0/8', // "this network" (RFC 791)
  '10.0.0.0/8', // private use (RFC 1918)
  '100.64.0.0/10', // shared address space, carrier-grade NAT (RFC 6598)
  '127.0.0.0/8', // loopback (RFC 1122)
  '169.254.0.0/16', // link-local (RFC 3927): cloud metadata services live here
  '172.16.0.0/12', // private use (RFC 1918)
  '192.0.0.0/24', // IETF protocol assignments (RFC 6890), with its /29, /32 entries
  '192.0.2.0/24', // documentation TEST-NET-1 (RFC 5737)
  '192.31.196.0/24', // AS112-v4 (RFC 7535)
  '192.52.193.0/24', // AMT (RFC 7450)
  '192.88.99.0/24', // deprecated 6to4 relay anycast (RFC 7526)
  '192.168.0.0/16', // private use (RFC 1918)
  '192.175.48.0/24', // direct delegation AS112 service (RFC 7534)
  '198.18.0.0/15', // benchmarking (RFC 2544)
  '198.51.100.0/24', // documentation TEST-NET-2 (RFC 5737)
  '203.0.113.0/24', // documentation TEST-NET-3 (RFC 5737)
  '224.0.0.0/4', // multicast (RFC 5771; the multicast registry, not unicast at all)
  '240.0.0.0/4', // reserved (RFC 1112), with 255.255.255.255/32, limited broadcast (RFC 919)
] as const;

/**
 * Global unicast: everything outside it is refused (loopback, ULA, link-local, multicast, the unspecified address, …).
 */
const IPV6_GLOBAL = '2000::/3';

const IPV6_SPECIAL = [
  '2001::/23', // IETF protocol assignments (RFC 2928): Teredo 2001::/32, benchmarking 2001:2::/48, AMT, AS112, ORCHID, DETs
  '2001:db8::/32', // documentation (RFC 3849)
  '2620:4f:8000::/48', // direct delegation AS112 service (RFC 7534)
  '3fff::/20', // documentation (RFC 9637)
] as const;

/** 6to4 (RFC 3056): the IPv4 address is bits 16-47. */
const SIX_TO_FOUR = '2002::/16';
/** NAT64's well-known prefix (RFC 6052): the IPv4 address is the last 32 bits. */
const NAT64 = '64:ff9b::/96';

type Address = ipaddr.IPv4 | ipaddr.IPv6;
const parsed = (list: readonly string[]) => list.map((c) => ipaddr.parseCIDR(c));
const V4 = parsed(IPV4_SPECIAL);
const V6 = parsed(IPV6_SPECIAL);
const [GLOBAL, SIX_TO_FOUR_NET, NAT64_NET] = parsed([IPV6_GLOBAL, SIX_TO_FOUR, NAT64]);

const inside = (ip: Address, nets: Array<[Address, number]>) =>
  nets.some(([net, bits]) => net.kind() === ip.kind() && ip.match(net, bits));

function v4From(bytes: number[]): ipaddr.IPv4 {
  return new ipaddr.IPv4(bytes);
}

/**
 * The IPv4 address an IPv6 one reaches, when it is a form that carries one (mapped, NAT64,
 * 6to4); null otherwise. IPv4-compatible (::/96) and Teredo forms carry one too, but they lie
 * outside 2000::/3 or in its special blocks and are refused as they are.
 */
export function embeddedIpv4(ip: ipaddr.IPv6): ipaddr.IPv4 | null {
  const b = ip.toByteArray();
  if (ip.isIPv4MappedAddress()) return ip.toIPv4Address();
  if (ip.match(NAT64_NET[0], NAT64_NET[1])) return v4From(b.slice(12, 16));
  if (ip.match(SIX_TO_FOUR_NET[0], SIX_TO_FOUR_NET[1])) return v4From(b.slice(2, 6));
  return null;
}

/** Whether an address, parsed, is a public unicast address by the registries above. */
export function isPublicAddress(ip: Address): boolean {
  if (ip.kind() === 'ipv4') return !inside(ip, V4);
  const v6 = ip as ipaddr.IPv6;
  const carried = embeddedIpv4(v6);
  if (carried) return isPublicAddress(carried);
  if (!v6.match(GLOBAL[0], GLOBAL[1])) return false;
  return !inside(v6, V6);
}

/** An address in any of its written forms (`::ffff:7f00:1`, `[::1]`), or null when it is not one. */
export function parseAddress(text: string): Address | null {
  const t = text.replace(/^\[|\]$/g, '');
  // Node's and the URL parser's forms only: ipaddr.js also reads `0x7f.1` and `127.1`, which a
  // name never resolves to and which a URL has already turned into the dotted form.
  if (!/^[0-9.]+$/.test(t) && !t.includes(':')) return null;
  try {
    const ip = ipaddr.parse(dottedTail(t.replace(/%.*$/, '')));
    if (ip.kind() === 'ipv4' && !ipaddr.IPv4.isValidFourPartDecimal(t)) return null;
    return ip;
  } catch {
    return null;
  }
}

/**
 * `::8.8.8.8` as `::808:808`: ipaddr.js reads any IPv6 address ending in dotted IPv4 as
 * IPv4-mapped (`::ffff:8.8.8.8`), which would judge an IPv4-compatible address by what it carries.
 */
function dottedTail(t: string): string {
  const m = /^(.*:)(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(t);
  if (!m) return t;
  const [a, b, c, d] = m.slice(2).map(Number);
  if ([a, b, c, d].some((x) => x > 255)) return t;
  return `${m[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}
