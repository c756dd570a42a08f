import { describe, expect, it } from 'vitest';
import { addressAllowed, checkHost, isAllowedHostEntry, nameAllowed } from './address-policy';
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
});
