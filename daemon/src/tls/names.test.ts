import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AllowedHosts, hostOfHeader } from '../http/guards/hosts';
import type { HostSources, NameSettings } from '../http/own-names';
import { LocalCa, sanNames } from './local-ca';
import { permittedFor, reviewNames } from './name-constraints';
import { serverNames } from './names';

const machine = (name: string): HostSources => ({
  interfaceAddresses: () => ['127.0.0.1', '192.168.1.20', '2001:db8::20', 'fe80::1%eth0', '::1'],
  machineName: () => name,
});

/** What a client sends as Host for a name it reached the daemon by: an IPv6 address in brackets, a port. */
const hostHeader = (name: string) => `${isIP(name) === 6 ? `[${name}]` : name}:4780`;

describe("--tls auto's certificate names only what the Host guard answers", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'boxyard-names-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const cases: { hostname: string; settings: NameSettings }[] = [];
  for (const hostname of ['lab', 'lab.example.com', 'Lab.Example.COM.']) {
    for (const host of ['0.0.0.0', '::', '[::]', '', '127.0.0.1', '192.168.1.20', '::1']) {
      cases.push({ hostname, settings: { host, publicUrl: undefined, allowedHosts: [] } });
      cases.push({
        hostname,
        settings: {
          host,
          publicUrl: 'https://boxes.example.org:8443',
          allowedHosts: ['alias.lan', '.corp.example', '10.0.0.7'],
        },
      });
    }
  }

  it.each(cases)(
    'host name $hostname, listening on $settings.host, public URL $settings.publicUrl',
    async ({ hostname, settings }) => {
      const sources = machine(hostname);
      // The certificate the daemon makes, from a CA made for these settings, its names read back out of it.
      const ca = await LocalCa.open(
        join(dir, String(cases.findIndex((c) => c.settings === settings))),
        'Test',
        permittedFor(settings, hostname),
      );
      const { certified } = reviewNames(settings, ca.permitted, serverNames(settings, sources), hostname);
      const issued = await ca.issue(certified);
      const inCertificate = sanNames(new X509Certificate(issued.cert).subjectAltName ?? '');
      expect(inCertificate.length).toBeGreaterThan(2);
      const guard = new AllowedHosts(settings, sources);
      for (const name of inCertificate)
        expect(guard.allows(hostOfHeader(hostHeader(name)) ?? ''), `${name} is in the certificate`).toBe(true);
    },
  );

  it('a machine named by a full domain name: lab.local is named and answered, lab.example.com.local neither', async () => {
    const settings = { host: '0.0.0.0', publicUrl: undefined, allowedHosts: [] };
    const sources = machine('lab.example.com');
    const names = serverNames(settings, sources);
    expect(names).toEqual(expect.arrayContaining(['lab.example.com', 'lab.local']));
    expect(names).not.toContain('lab.example.com.local');
    const guard = new AllowedHosts(settings, sources);
    expect(['lab.local', 'lab.example.com', 'lab.example.com.local'].map((h) => guard.allows(h))).toEqual([
      true,
      true,
      false,
    ]);
    // A link-local address is answered but not named: a certificate cannot carry its zone.
    expect(guard.allows('fe80::1')).toBe(true);
    expect(names).not.toContain('fe80::1');
  });

  it('leaves out all of fe80::/10, up to febf::, and names the addresses past it', () => {
    const settings = { host: '::', publicUrl: undefined, allowedHosts: [] };
    const addresses = ['fe80::1%eth0', 'fe9a::1', 'FEBF::1%eth0.100', 'fec0::1', 'fe7f::1', '2001:db8::20'];
    const names = serverNames(settings, { interfaceAddresses: () => addresses, machineName: () => 'lab' });
    const guard = new AllowedHosts(settings, { interfaceAddresses: () => addresses, machineName: () => 'lab' });
    for (const linkLocal of ['fe80::1', 'fe9a::1', 'febf::1']) {
      expect(guard.allows(linkLocal), `${linkLocal} is answered`).toBe(true);
      expect(names, `${linkLocal} is link-local`).not.toContain(linkLocal);
    }
    expect(names).toEqual(expect.arrayContaining(['fec0::1', 'fe7f::1', '2001:db8::20']));
  });
});
