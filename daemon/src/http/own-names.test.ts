import { describe, expect, it } from 'vitest';
import { allowedHostEntries, listensOnAll, machineNames, ownNames, type HostSources } from './own-names';
import { normalizeHost } from '../lib/host-names';

const machine = (name: string, addresses: string[] = ['192.168.1.20', 'fe80::1%eth0']): HostSources => ({
  interfaceAddresses: () => addresses,
  machineName: () => name,
});
const settings = (host: string, extra: { publicUrl?: string; allowedHosts?: string[] } = {}) => ({
  host,
  publicUrl: extra.publicUrl,
  allowedHosts: extra.allowedHosts ?? [],
});

describe("the daemon's own names", () => {
  it("a machine's names: its host name as set, and the mDNS name of its first label", () => {
    expect(machineNames('lab')).toEqual(['lab', 'lab.local']);
    expect(machineNames('Lab.Example.COM.')).toEqual(['lab.example.com', 'lab.local']);
    expect(machineNames('')).toEqual([]);
  });

  it('one form for a name or address however it is written', () => {
    expect(
      ['Example.org.', '[::1]', '0:0:0:0:0:0:0:1', 'FE80::1%eth0', '::ffff:127.0.0.1', ' 10.0.0.7 '].map(normalizeHost),
    ).toEqual(['example.org', '::1', '::1', 'fe80::1', '127.0.0.1', '10.0.0.7']);
  });

  it('every spelling of "all interfaces" is one', () => {
    expect(['0.0.0.0', '::', '[::]', '0:0:0:0:0:0:0:0', ''].map(listensOnAll)).toEqual([true, true, true, true, true]);
    expect(['127.0.0.1', '::1', '192.168.1.20', 'localhost'].map(listensOnAll)).toEqual([false, false, false, false]);
  });

  it("listening on every interface: the public URL's host first, the machine's names, every address, loopback, allowed names", () => {
    for (const host of ['0.0.0.0', '::', '[::]']) {
      const names = ownNames(
        settings(host, { publicUrl: 'https://boxes.example.org', allowedHosts: ['alias.lan', '.corp.example', '*'] }),
        machine('lab.example.com'),
      );
      expect(names).toEqual({
        exact: [
          'boxes.example.org',
          'lab.example.com',
          'lab.local',
          'localhost',
          '192.168.1.20',
          'fe80::1',
          '127.0.0.1',
          '::1',
          'alias.lan',
        ],
        domains: ['corp.example'],
        any: true,
        allInterfaces: true,
      });
    }
  });

  it('a short host name on every interface (an empty listen address too): the name, its mDNS name, the addresses', () => {
    for (const host of ['0.0.0.0', '::', '[::]', ''])
      expect(ownNames(settings(host), machine('lab')), host).toEqual({
        exact: ['lab', 'lab.local', 'localhost', '192.168.1.20', 'fe80::1', '127.0.0.1', '::1'],
        domains: [],
        any: false,
        allInterfaces: true,
      });
  });

  it('a name is listed once, where it first comes, however it is written', () => {
    const names = ownNames(
      settings('::', { publicUrl: 'http://LAB.local:4780', allowedHosts: ['lab', '192.168.1.20', 'Localhost.'] }),
      machine('lab', ['192.168.1.20', '::ffff:192.168.1.20', '::1']),
    );
    expect(names.exact).toEqual(['lab.local', 'lab', 'localhost', '192.168.1.20', '::1', '127.0.0.1']);
    // An IPv6 public URL's host comes without its brackets.
    expect(ownNames(settings('127.0.0.1', { publicUrl: 'https://[2001:DB8::1]:8443/' }), machine('lab')).exact).toEqual(
      ['2001:db8::1', 'localhost', '127.0.0.1', '::1'],
    );
  });

  it("listening on one address: that address and loopback, not the machine's names or other addresses", () => {
    expect(ownNames(settings('192.168.1.20'), machine('lab')).exact).toEqual([
      'localhost',
      '192.168.1.20',
      '127.0.0.1',
      '::1',
    ]);
    expect(ownNames(settings('[::1]'), machine('lab')).exact).toEqual(['localhost', '::1', '127.0.0.1']);
  });

  it('--allowed-hosts: names, `.domain` with what is under it, `*`', () => {
    expect(allowedHostEntries(['Boxes.LAN', '.Corp.Example', '[::1]', '*'])).toEqual({
      exact: ['boxes.lan', '::1'],
      domains: ['corp.example'],
      any: true,
    });
  });
});
