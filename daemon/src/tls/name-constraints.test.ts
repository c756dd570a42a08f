import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { describe, expect, it } from 'vitest';
import {
  constraintsOf,
  LAN_DNS,
  LAN_RANGES,
  nameConstraintsExtension,
  permits,
  permittedFor,
  reviewNames,
} from './name-constraints';
import { serverNames } from './names';

const LAN_ONLY = { host: '127.0.0.1', publicUrl: undefined, allowedHosts: [] };

describe("name constraints of --tls auto's CA", () => {
  it('permit the LAN names with the names under them, and the LAN ranges, nothing else', () => {
    const p = permittedFor(LAN_ONLY, 'labhost');
    for (const name of [
      'labhost',
      'local',
      'labhost.local',
      'localhost',
      'nas.home.arpa',
      'box.internal',
      'router.lan',
      '127.0.0.1',
      '127.8.9.10',
      '::1',
      '10.1.2.3',
      '172.31.255.1',
      '192.168.1.20',
      '100.64.0.1',
      '100.127.255.254',
      '169.254.10.10',
      'fd12:3456::1',
      'fe80::1',
      '[FD00::5]',
    ]) {
      expect(permits(p, name), name).toBe(true);
    }
    // A single-label host name is that name, not a top-level domain: nothing under it.
    expect(p.excluded).toEqual(['.labhost']);
    for (const name of [
      'evil.example.com',
      'ci.labhost',
      'www.google.labhost',
      'xlocal',
      'local.example.com',
      'example.lan.evil.com',
      'labhostx',
      'arpa',
      '8.8.8.8',
      '172.32.0.1',
      '192.169.0.1',
      '100.128.0.1',
      '11.0.0.1',
      '2001:db8::1',
      '::2',
      'fec0::1',
    ]) {
      expect(permits(p, name), name).toBe(false);
    }
  });

  it("add the host name, the public URL's host, a listen address and --allowed-hosts, but never `*`", () => {
    const p = permittedFor(
      {
        host: '203.0.113.9',
        publicUrl: 'https://Boxes.Example.org:4780',
        allowedHosts: ['.corp.example', 'ci.other.example', '198.51.100.4', '[2001:db8::7]', '*', '192.168.3.3'],
      },
      'lab.corp.example',
    );
    expect(p.dns).toEqual([...LAN_DNS, 'lab.corp.example', 'boxes.example.org', 'ci.other.example', 'corp.example']);
    // A name or address a range already covers is not repeated.
    expect(p.ip).toEqual([...LAN_RANGES, '203.0.113.9/32', '198.51.100.4/32', '2001:db8::7/128']);
    expect(permits(p, 'a.b.corp.example')).toBe(true);
    expect(permits(p, 'other.example')).toBe(false);
    expect(permits(p, '198.51.100.5')).toBe(false);
  });

  it('a host called like a public top-level domain (dev, app, io) permits that name only', () => {
    for (const tld of ['dev', 'app', 'io', 'cloud']) {
      const p = permittedFor({ host: '0.0.0.0', publicUrl: undefined, allowedHosts: [tld, `.${tld}x`] }, tld);
      expect(permits(p, tld), tld).toBe(true);
      for (const name of [`www.google.${tld}`, `a.${tld}`, `b.${tld}x`]) expect(permits(p, name), name).toBe(false);
      expect(permits(p, `${tld}x`)).toBe(true);
    }
  });

  it("a leading-dot constraint (another CA's) covers the names under it only, as OpenSSL reads it", () => {
    expect(permits({ dns: ['.local'], ip: [] }, 'lab.local')).toBe(true);
    expect(permits({ dns: ['.local'], ip: [] }, 'local')).toBe(false);
    // A kind with no subtree is not constrained.
    expect(permits({ dns: ['local'], ip: [] }, '8.8.8.8')).toBe(true);
  });

  it('written as a critical extension and read back from the certificate', async () => {
    const p = permittedFor({ host: '::', publicUrl: 'https://[2001:db8::1]:4780', allowedHosts: [] }, 'labhost');
    const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
    const keys = await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify']);
    const make = (extensions: x509.Extension[]) =>
      x509.X509CertificateGenerator.createSelfSigned(
        {
          name: 'CN=t',
          keys,
          signingAlgorithm: alg,
          notBefore: new Date(),
          notAfter: new Date(Date.now() + 86_400_000),
          extensions,
        },
        webcrypto as never,
      );
    const cert = new x509.X509Certificate((await make([nameConstraintsExtension(p)])).rawData);
    expect(cert.getExtension('2.5.29.30')?.critical).toBe(true);
    expect(constraintsOf(cert)).toEqual(p);
    expect(p.ip).toContain('2001:db8::1/128');
    expect(constraintsOf(await make([]))).toBeNull();
  });

  it('the certificate names only what the CA may certify; a new CA is advised when it would cover the rest', () => {
    const nets = { interfaceAddresses: () => ['192.168.1.20', '2001:db8::20'], machineName: () => 'labhost' };
    const before = { host: '0.0.0.0', publicUrl: undefined, allowedHosts: [] };
    const ca = permittedFor(before, 'labhost');
    const same = reviewNames(before, ca, serverNames(before, nets), 'labhost');
    // The public address on the interface: left out and reported, but no new CA would cover it.
    expect(same).toEqual({
      certified: ['labhost', 'labhost.local', 'localhost', '192.168.1.20', '127.0.0.1', '::1'],
      outside: ['2001:db8::20'],
      replace: null,
    });
    // A public URL and an allowed domain added since the CA was made: a new CA covers them.
    const after = {
      host: '0.0.0.0',
      publicUrl: 'https://boxes.example.org',
      allowedHosts: ['.corp.example', 'ci.corp.example'],
    };
    const later = reviewNames(after, ca, serverNames(after, nets), 'labhost');
    expect(later.certified).not.toContain('boxes.example.org');
    expect(later.outside).toEqual(['boxes.example.org', '2001:db8::20', 'ci.corp.example', 'corp.example']);
    expect(later.replace).toBe('names_outside');
    // A CA without constraints (made before them) certifies every name, and is advised to be replaced.
    expect(reviewNames(after, null, ['a.example', '8.8.8.8'], 'labhost')).toEqual({
      certified: ['a.example', '8.8.8.8'],
      outside: [],
      replace: 'unconstrained',
    });
  });
});
