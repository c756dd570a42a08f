import { describe, expect, it } from 'vitest';
import { addressAllowed, checkHost, checkLiteral, isAllowedHostEntry, nameAllowed } from './address-policy';
import { AddressNotAllowedError } from './errors';

const none = { allowed: [] };

describe('address policy (server-side request forgery)', () => {
  it('allows public unicast addresses only, unless listed', () => {
    for (const a of ['93.184.215.14', '2606:4700::1111', '8.8.8.8']) expect(addressAllowed(a, none), a).toBe(true);
    for (const a of [
      '127.0.0.1',
      '127.8.9.1',
      '::1',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.20',
      '169.254.169.254',
      'fe80::1',
      'fd00::1',
      '0.0.0.0',
      '::',
      '100.64.0.1',
      '224.0.0.1',
      '255.255.255.255',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      'not-an-address',
    ]) {
      expect(addressAllowed(a, none), a).toBe(false);
    }
  });

  it('an allowed address, network (IPv4, IPv6, IPv4-mapped) or name opens exactly that', () => {
    const rules = {
      allowed: ['192.168.1.20', '10.0.0.0/8', 'fd00::/8', '::ffff:172.16.0.0/108', 'boxyard.lab', '*.corp'],
    };
    expect(addressAllowed('192.168.1.20', rules)).toBe(true);
    expect(addressAllowed('192.168.1.21', rules)).toBe(false);
    expect(addressAllowed('10.200.3.4', rules)).toBe(true);
    expect(addressAllowed('::ffff:10.200.3.4', rules)).toBe(true);
    expect(addressAllowed('fd12::5', rules)).toBe(true);
    expect(addressAllowed('172.16.9.9', rules)).toBe(true);
    expect(addressAllowed('127.0.0.1', rules)).toBe(false);
    expect(nameAllowed('BOXYARD.lab.', rules)).toBe(true);
    expect(nameAllowed('mirror.corp', rules)).toBe(true);
    expect(nameAllowed('corp', rules)).toBe(false);
    expect(nameAllowed('evil-boxyard.lab', rules)).toBe(false);
    expect(nameAllowed('192.168.1.20', rules)).toBe(false);
  });

  it('knows a valid entry from a typo', () => {
    for (const e of ['192.168.1.20', '10.0.0.0/8', 'fd00::/8', 'boxyard.lab', '*.lab', 'localhost'])
      expect(isAllowedHostEntry(e), e).toBe(true);
    for (const e of ['not a host', '10.0.0.0/99', 'http://x', '*', '*.', 'a..b', ''])
      expect(isAllowedHostEntry(e), e).toBe(false);
  });

  it('a name is checked by every address it resolves to, and answers exactly the addresses it checked', async () => {
    const resolve = async (host: string) =>
      host === 'mixed.example'
        ? [
            { address: '93.184.215.14', family: 4 },
            { address: '10.0.0.7', family: 4 },
          ]
        : [{ address: '93.184.215.14', family: 4 }];
    await expect(checkHost('mixed.example', none, resolve)).rejects.toThrow(AddressNotAllowedError);
    // The refusal names the host, never what it resolved to (that would map the lab's DNS).
    await expect(checkHost('mixed.example', none, resolve)).rejects.toThrow(
      /^mixed\.example is not a public address[^0-9]*mirror_allowed_hosts/,
    );
    expect(await checkHost('public.example', none, resolve)).toEqual([{ address: '93.184.215.14', family: 4 }]);
    expect(await checkHost('mixed.example', { allowed: ['mixed.example'] }, resolve)).toHaveLength(2);
    expect(await checkHost('[::1]', { allowed: ['::1'] }, resolve)).toEqual([{ address: '::1', family: 6 }]);
    await expect(checkHost('127.0.0.1', none, resolve)).rejects.toThrow(AddressNotAllowedError);
  });

  it('an address literal as a URL gives it is judged by the IPv4 address its IPv6 form reaches', () => {
    const literal = (url: string) => new URL(url).hostname;
    // IPv4-mapped, NAT64 (64:ff9b::/96) and 6to4 (2002::/16) forms of 127.0.0.1, 10.0.0.1 and 8.8.8.8.
    for (const url of ['http://[::ffff:127.0.0.1]/', 'http://[64:ff9b::10.0.0.1]/', 'http://[2002:a00:1::1]/'])
      expect(() => checkLiteral(literal(url), none), url).toThrow(AddressNotAllowedError);
    for (const url of ['http://[::ffff:8.8.8.8]/', 'http://[64:ff9b::8.8.8.8]/', 'http://[2002:808:808::1]/'])
      expect(() => checkLiteral(literal(url), none), url).not.toThrow();
    // Teredo, IPv4-compatible (`::a.b.c.d`) and NAT64's local-use prefix are refused whatever they carry.
    for (const url of [
      'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/',
      'http://[::8.8.8.8]/',
      'http://[::127.0.0.1]/',
      'http://[64:ff9b:1::808:808]/',
    ])
      expect(() => checkLiteral(literal(url), none), url).toThrow(AddressNotAllowedError);
    // The refusal names the host as the URL wrote it; a name is left to its lookup.
    expect(() => checkLiteral(literal('http://[::ffff:127.0.0.1]/'), none)).toThrow(/^\[::ffff:7f00:1\] is not/);
    expect(() => checkLiteral('boxyard.lab', none)).not.toThrow();
  });

  it('a name that resolves to an IPv6 form of a private IPv4 address is refused', async () => {
    const to = (address: string) => async () => [{ address, family: 6 }];
    for (const a of ['::ffff:10.0.0.1', '64:ff9b::a00:1', '2002:a00:1::1', '::a00:1'])
      await expect(checkHost('sneaky.example', none, to(a)), a).rejects.toThrow(AddressNotAllowedError);
    expect(await checkHost('nat64.example', none, to('64:ff9b::808:808'))).toEqual([
      { address: '64:ff9b::808:808', family: 6 },
    ]);
  });

  it('an allowed IPv4 network opens its IPv4-mapped form, not its NAT64, 6to4 or IPv4-compatible ones', () => {
    const rules = { allowed: ['192.168.1.0/24'] };
    expect(addressAllowed('::ffff:192.168.1.7', rules)).toBe(true);
    for (const a of ['64:ff9b::192.168.1.7', '2002:c0a8:107::1', '::192.168.1.7'])
      expect(addressAllowed(a, rules), a).toBe(false);
    // Those are opened by listing them as they are.
    expect(addressAllowed('64:ff9b::192.168.1.7', { allowed: ['64:ff9b::c0a8:100/120'] })).toBe(true);
  });

  it('entries match by kind and value, trimmed; entries that parse as nothing match nothing', () => {
    expect(addressAllowed('10.0.0.1', { allowed: ['10.0.0.0/99', 'garbage', '*.10.0.0.1', 'fd00::/200'] })).toBe(false);
    expect(addressAllowed('10.0.0.1', { allowed: [' 10.0.0.1 '] })).toBe(true);
    expect(addressAllowed('10.0.0.1', { allowed: ['fd00::/8'] })).toBe(false);
    expect(addressAllowed('fd00::1', { allowed: ['10.0.0.0/8'] })).toBe(false);
    expect(addressAllowed('0:0:0:0:0:0:0:1', { allowed: ['::1'] })).toBe(true);
    expect(addressAllowed('[::1]', { allowed: ['0:0:0:0:0:0:0:1'] })).toBe(true);
  });

  it('`*.domain` allows every name under it at any depth, never the domain or a name ending in it', () => {
    const rules = { allowed: [' *.Corp '] };
    expect(['a.corp', 'a.b.corp', 'A.B.CORP.'].map((n) => nameAllowed(n, rules))).toEqual([true, true, true]);
    expect(['corp', 'xcorp', 'a.corp.evil'].map((n) => nameAllowed(n, rules))).toEqual([false, false, false]);
  });
});
