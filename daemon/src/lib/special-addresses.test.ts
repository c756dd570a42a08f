import { describe, expect, it } from 'vitest';
import type ipaddr from 'ipaddr.js';
import { embeddedIpv4, isPublicAddress, parseAddress } from './special-addresses';
import { addressAllowed } from './address-policy';

/**
 * Every block of IANA's special-purpose address registries, written out from the registries
 * themselves (iana-ipv4-special-registry and iana-ipv6-special-registry, with multicast), each
 * with its first and last address: none of them may be reached on someone else's word. The
 * policy's own table (special-addresses.ts) is not read here.
 */
const IPV4_REGISTRY: Array<[block: string, first: string, last: string]> = [
  ['0.0.0.0/8 this network', '0.0.0.0', '0.255.255.255'],
  ['10.0.0.0/8 private-use', '10.0.0.0', '10.255.255.255'],
  ['100.64.0.0/10 shared address space', '100.64.0.0', '100.127.255.255'],
  ['127.0.0.0/8 loopback', '127.0.0.0', '127.255.255.255'],
  ['169.254.0.0/16 link local', '169.254.0.0', '169.254.255.255'],
  ['172.16.0.0/12 private-use', '172.16.0.0', '172.31.255.255'],
  ['192.0.0.0/24 IETF protocol assignments', '192.0.0.0', '192.0.0.255'],
  ['192.0.0.0/29 IPv4 service continuity prefix', '192.0.0.0', '192.0.0.7'],
  ['192.0.0.8/32 IPv4 dummy address', '192.0.0.8', '192.0.0.8'],
  ['192.0.0.9/32 port control protocol anycast', '192.0.0.9', '192.0.0.9'],
  ['192.0.0.10/32 TURN anycast', '192.0.0.10', '192.0.0.10'],
  ['192.0.0.170/32 NAT64/DNS64 discovery', '192.0.0.170', '192.0.0.171'],
  ['192.0.2.0/24 documentation (TEST-NET-1)', '192.0.2.0', '192.0.2.255'],
  ['192.31.196.0/24 AS112-v4', '192.31.196.0', '192.31.196.255'],
  ['192.52.193.0/24 AMT', '192.52.193.0', '192.52.193.255'],
  ['192.88.99.0/24 deprecated 6to4 relay anycast', '192.88.99.0', '192.88.99.255'],
  ['192.168.0.0/16 private-use', '192.168.0.0', '192.168.255.255'],
  ['192.175.48.0/24 direct delegation AS112', '192.175.48.0', '192.175.48.255'],
  ['198.18.0.0/15 benchmarking', '198.18.0.0', '198.19.255.255'],
  ['198.51.100.0/24 documentation (TEST-NET-2)', '198.51.100.0', '198.51.100.255'],
  ['203.0.113.0/24 documentation (TEST-NET-3)', '203.0.113.0', '203.0.113.255'],
  ['224.0.0.0/4 multicast', '224.0.0.0', '239.255.255.255'],
  ['240.0.0.0/4 reserved', '240.0.0.0', '255.255.255.254'],
  ['255.255.255.255/32 limited broadcast', '255.255.255.255', '255.255.255.255'],
];

const IPV6_REGISTRY: Array<[block: string, first: string, last: string]> = [
  ['::/128 unspecified', '::', '::'],
  ['::1/128 loopback', '::1', '::1'],
  ['::/96 IPv4-compatible (deprecated)', '::0.0.0.2', '::255.255.255.255'],
  ['64:ff9b:1::/48 local-use IPv4/IPv6 translation', '64:ff9b:1::', '64:ff9b:1:ffff:ffff:ffff:ffff:ffff'],
  ['100::/64 discard-only', '100::', '100::ffff:ffff:ffff:ffff'],
  ['100:0:0:1::/64 dummy IPv6 prefix', '100:0:0:1::', '100:0:0:1:ffff:ffff:ffff:ffff'],
  ['2001::/23 IETF protocol assignments', '2001::', '2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['2001::/32 Teredo', '2001::', '2001:0:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['2001:1::1/128 PCP anycast', '2001:1::1', '2001:1::3'],
  ['2001:2::/48 benchmarking', '2001:2::', '2001:2:0:ffff:ffff:ffff:ffff:ffff'],
  ['2001:3::/32 AMT', '2001:3::', '2001:3:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['2001:4:112::/48 AS112-v6', '2001:4:112::', '2001:4:112:ffff:ffff:ffff:ffff:ffff'],
  ['2001:10::/28 deprecated ORCHID', '2001:10::', '2001:1f:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['2001:20::/28 ORCHIDv2', '2001:20::', '2001:2f:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['2001:30::/28 drone remote ID DETs', '2001:30::', '2001:3f:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['2001:db8::/32 documentation', '2001:db8::', '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['2620:4f:8000::/48 direct delegation AS112', '2620:4f:8000::', '2620:4f:8000:ffff:ffff:ffff:ffff:ffff'],
  ['3fff::/20 documentation', '3fff::', '3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['5f00::/16 segment routing SIDs', '5f00::', '5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['fc00::/7 unique-local', 'fc00::', 'fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['fe80::/10 link-local unicast', 'fe80::', 'febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['ff00::/8 multicast', 'ff00::', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['outside 2000::/3, below it', '400::', '1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['outside 2000::/3, above it', '4000::', 'fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
];

/** The IPv4 address in the three IPv6 forms that carry one to IPv4: mapped, NAT64, 6to4. */
function carriers(v4: string): string[] {
  const [a, b, c, d] = v4.split('.').map(Number);
  const hex = (x: number, y: number) => ((x << 8) | y).toString(16);
  return [`::ffff:${v4}`, `::ffff:${hex(a, b)}:${hex(c, d)}`, `64:ff9b::${v4}`, `2002:${hex(a, b)}:${hex(c, d)}::1`];
}

const PUBLIC_V4 = [
  '8.8.8.8',
  '1.1.1.1',
  '93.184.215.14',
  '9.255.255.255',
  '11.0.0.0',
  '100.63.255.255',
  '100.128.0.0',
  '126.255.255.255',
  '128.0.0.0',
  '169.253.255.255',
  '169.255.0.0',
  '172.15.255.255',
  '172.32.0.0',
  '192.0.1.0',
  '192.0.3.0',
  '192.88.98.255',
  '192.167.255.255',
  '192.169.0.0',
  '198.17.255.255',
  '198.20.0.0',
  '203.0.112.255',
  '223.255.255.255',
];
const PUBLIC_V6 = [
  '2606:4700::1111',
  '2a00:1450:4001::1',
  '2000::1',
  '2001:200::1',
  '2001:db7::1',
  '2001:db9::1',
  '2003::1',
  '2620:4f:7fff::1',
  '2620:4f:8001::1',
  '3ffe::1',
  '3fff:1000::1',
  '3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
];

const publicAddress = (a: string) => {
  const ip = parseAddress(a);
  if (!ip) throw new Error(`${a} does not parse`);
  return isPublicAddress(ip);
};

describe("the outbound address policy over IANA's special-purpose registries", () => {
  it.each(IPV4_REGISTRY)('refuses %s, first to last, and in every IPv6 form that reaches it', (_block, first, last) => {
    for (const a of [first, last]) {
      expect(publicAddress(a), a).toBe(false);
      for (const form of carriers(a)) expect(publicAddress(form), form).toBe(false);
      expect(addressAllowed(a, { allowed: [] }), a).toBe(false);
    }
  });

  it.each(IPV6_REGISTRY)('refuses %s, first to last', (_block, first, last) => {
    for (const a of [first, last]) {
      expect(publicAddress(a), a).toBe(false);
      expect(addressAllowed(`[${a}]`, { allowed: [] }), a).toBe(false);
    }
  });

  it('allows public unicast addresses, also through IPv4-mapped, NAT64 and 6to4 forms', () => {
    for (const a of PUBLIC_V4) {
      expect(publicAddress(a), a).toBe(true);
      for (const form of carriers(a)) expect(publicAddress(form), form).toBe(true);
    }
    for (const a of PUBLIC_V6) expect(publicAddress(a), a).toBe(true);
  });

  it('refuses Teredo and IPv4-compatible forms even when they carry a public address', () => {
    // Teredo: server 65.54.227.120, client 192.0.2.45 obfuscated; and one carrying 8.8.8.8.
    for (const a of [
      '2001:0:4136:e378:8000:63bf:3fff:fdd2',
      '2001:0:808:808::f7f7:f7f7',
      '::8.8.8.8',
      '::808:808',
      '::127.0.0.1',
      '::7f00:1',
      '::10.0.0.1',
    ]) {
      expect(publicAddress(a), a).toBe(false);
    }
  });

  it('finds the IPv4 address of the mapped, NAT64 and 6to4 forms only', () => {
    const carried = (a: string) => embeddedIpv4(parseAddress(a) as ipaddr.IPv6)?.toString() ?? null;
    for (const a of ['::ffff:1.2.3.4', '::ffff:102:304', '64:ff9b::1.2.3.4', '2002:102:304::', '2002:102:304:5::6'])
      expect(carried(a), a).toBe('1.2.3.4');
    // Teredo, IPv4-compatible, NAT64's local-use /48 and a plain global address carry none the policy follows.
    for (const a of ['2001:0:4136:e378:8000:63bf:3fff:fdd2', '::1.2.3.4', '64:ff9b:1::102:304', '2606:4700::1111'])
      expect(carried(a), a).toBeNull();
  });

  it('reads an IPv6 address ending in dotted IPv4 as written: `::a.b.c.d` stays IPv4-compatible', () => {
    expect(parseAddress('::1.2.3.4')?.toString()).toBe('::102:304');
    expect(parseAddress('::ffff:1.2.3.4')?.toString()).toBe('::ffff:102:304');
    expect(parseAddress('64:ff9b::1.2.3.4')?.toString()).toBe('64:ff9b::102:304');
    expect(parseAddress('::1.2.3.256')).toBeNull();
  });

  it('reads only the forms a resolver or a URL produces; zone ids are dropped', () => {
    for (const t of ['0x7f.1', '127.1', '2130706433', '017700000001', 'localhost', '', '1.2.3.4.5'])
      expect(parseAddress(t), t).toBeNull();
    expect(parseAddress('[::1]')?.toString()).toBe('::1');
    expect(publicAddress('fe80::1%eth0')).toBe(false);
  });

  it('the allowed list opens an address or network in its IPv4 and IPv4-mapped forms, nothing else', () => {
    const rules = { allowed: ['192.168.1.0/24', '10.0.0.5'] };
    for (const a of ['192.168.1.7', '::ffff:192.168.1.7', '10.0.0.5', '::ffff:10.0.0.5'])
      expect(addressAllowed(a, rules), a).toBe(true);
    for (const a of ['192.168.2.7', '10.0.0.6', '127.0.0.1', '::ffff:127.0.0.1'])
      expect(addressAllowed(a, rules), a).toBe(false);
  });
});
