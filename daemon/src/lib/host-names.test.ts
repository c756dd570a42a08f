import { describe, expect, it } from 'vitest';
import { isLoopback, normalizeHost, unbracketed, unmapped, urlHost } from './host-names';
import { parseAddress } from './special-addresses';

describe('isLoopback', () => {
  it.each([
    'localhost',
    'LOCALHOST',
    'localhost.',
    ' localhost ',
    '127.0.0.1',
    '127.8.9.1',
    '127.255.255.254',
    '::1',
    '[::1]',
    '[::1%lo]',
    '0:0:0:0:0:0:0:1',
    '0000:0000:0000:0000:0000:0000:0000:0001',
    '::ffff:127.0.0.1',
    '[::ffff:127.0.0.1]',
    '::FFFF:7f00:1',
  ])('%s is loopback', (host) => {
    expect(isLoopback(host)).toBe(true);
  });

  it.each([
    '',
    '0.0.0.0',
    '::',
    '[::]',
    '10.0.0.1',
    '192.168.1.20',
    '128.0.0.1',
    '::2',
    '::ffff:10.0.0.1',
    'fe80::1',
    '::127.0.0.1',
    '127.example.com',
    '127.0.0.1.nip.io',
    'localhost.example.com',
    'mylocalhost',
    '127.1',
    '0x7f.0.0.1',
    '2130706433',
  ])('%s is not', (host) => {
    expect(isLoopback(host)).toBe(false);
  });
});

describe('normalizeHost', () => {
  it.each([
    ['Lab.Example.COM.', 'lab.example.com'],
    ['[FE80::1%eth0]', 'fe80::1'],
    ['[::1]', '::1'],
    [' boxyard.lan ', 'boxyard.lan'],
    ['10.0.0.1', '10.0.0.1'],
  ])('%s is %s', (name, want) => {
    expect(normalizeHost(name)).toBe(want);
  });
});

describe('urlHost', () => {
  it.each([
    ['::1', '[::1]'],
    ['[::1]', '[::1]'],
    ['::', '[::]'],
    ['fe80::1%eth0', '[fe80::1%eth0]'],
    ['10.0.0.1', '10.0.0.1'],
    ['boxyard.lan', 'boxyard.lan'],
  ])('%s is written %s', (host, want) => {
    expect(urlHost(host)).toBe(want);
  });
});

describe('unbracketed', () => {
  it('takes off the brackets of an IPv6 address and nothing else', () => {
    expect(['[::1]', '[FE80::1%eth0]', '::1', 'Lab.', '[::1'].map(unbracketed)).toEqual([
      '::1',
      'FE80::1%eth0',
      '::1',
      'Lab.',
      '[::1',
    ]);
  });
});

describe('unmapped', () => {
  it('answers the IPv4 address an IPv4-mapped one carries, any other address as it is', () => {
    const of = (a: string) => {
      const ip = parseAddress(a);
      if (!ip) throw new Error(`${a} is an address`);
      return unmapped(ip).toString();
    };
    expect(['::ffff:10.0.0.1', '::ffff:7f00:1', '10.0.0.1', '::1', '::127.0.0.1', '64:ff9b::a00:1'].map(of)).toEqual([
      '10.0.0.1',
      '127.0.0.1',
      '10.0.0.1',
      '::1',
      '::7f00:1',
      '64:ff9b::a00:1',
    ]);
  });
});
