import { hostname as osHostname } from 'node:os';
import { isIP } from 'node:net';
import * as x509 from '@peculiar/x509';
import {
  GeneralName,
  GeneralSubtree,
  GeneralSubtrees,
  NameConstraints,
  id_ce_nameConstraints,
} from '@peculiar/asn1-x509';
import { AsnConvert } from '@peculiar/asn1-schema';
import ipaddr from 'ipaddr.js';
import type { LocalCaJson } from '../contract/wire/overview';
import { allowedHostEntries, listensOnAll, machineNames, type NameSettings } from '../http/own-names';
import { normalizeHost } from '../lib/host-names';

/**
 * The names `--tls auto`'s CA may certify: its NameConstraints extension, critical, so
 * that its key, if it is ever copied, signs for LAN names and addresses only, never for a public
 * site. `dns` are dNSName subtrees in the form without a leading dot, which RFC 5280, OpenSSL, Go
 * and NSS all read as the name itself and every name under it (`local` covers `lab.local`; the
 * `.local` form would leave out `local` itself, and verifiers read it differently). `ip` are
 * address ranges (CIDR). `excluded` are excluded dNSName subtrees, each with a leading dot (the
 * names under it only): a single-label name (a host called `dev`) is permitted as itself, never
 * as the top-level domain whose every site it would cover (`www.google.dev`).
 */
export interface Permitted {
  dns: string[];
  ip: string[];
  excluded?: string[];
}

/**
 * The DNS names a LAN daemon is reached by wherever it runs: mDNS, loopback and the names RFC 8375 and common routers
 * give a LAN.
 */
export const LAN_DNS = ['local', 'localhost', 'home.arpa', 'internal', 'lan'] as const;

/** Loopback, RFC 1918, CGNAT (RFC 6598), link-local, IPv6 unique-local (RFC 4193) and link-local. */
export const LAN_RANGES = [
  '127.0.0.0/8',
  '::1/128',
  '10.0.0.0/8',
  '172.16.0.0/12',
  '192.168.0.0/16',
  '100.64.0.0/10',
  '169.254.0.0/16',
  'fc00::/7',
  'fe80::/10',
] as const;

const inRange = (address: string, cidr: string): boolean => {
  const a = ipaddr.parse(address);
  const [base, bits] = ipaddr.parseCIDR(cidr);
  return a.kind() === base.kind() && a.match(base, bits);
};

/**
 * `name` is `constraint` or a name under it (a constraint with a leading dot: only names under it), as OpenSSL compares
 * them.
 */
const underDns = (name: string, constraint: string): boolean => {
  const c = constraint.toLowerCase();
  return c.startsWith('.') ? name.endsWith(c) : name === c || name.endsWith(`.${c}`);
};

/**
 * Whether a CA with these constraints may certify `name` (a host name or an address); a kind with no subtree is not
 * constrained.
 */
export function permits(p: Permitted, name: string): boolean {
  const n = normalizeHost(name);
  if (isIP(n)) return p.ip.length === 0 || p.ip.some((r) => inRange(n, r));
  if ((p.excluded ?? []).some((c) => underDns(n, c))) return false;
  return p.dns.length === 0 || p.dns.some((c) => underDns(n, c));
}

/**
 * The constraints a new CA gets: the LAN names and ranges, and the names this daemon is set up to
 * be reached by (http/own-names.ts): the machine's names (whatever address the daemon listens on
 * now: the CA outlives a `--host`), the public URL's host, a listen address that is not a
 * wildcard, and `--allowed-hosts` (a `.domain` entry as that domain and its subdomains). `*` adds
 * nothing: a CA for any name is what the constraints are there to prevent.
 */
export function permittedFor(settings: NameSettings, hostname: string = osHostname()): Permitted {
  const p: Permitted = { dns: [...LAN_DNS], ip: [...LAN_RANGES] };
  const entries = allowedHostEntries(settings.allowedHosts);
  const listen = listensOnAll(settings.host) ? '' : settings.host;
  const names = [
    ...machineNames(hostname),
    settings.publicUrl && new URL(settings.publicUrl).hostname,
    listen,
    ...entries.exact,
    ...entries.domains,
  ];
  for (const raw of names) {
    const n = raw ? normalizeHost(raw) : '';
    if (!n || permits(p, n)) continue;
    if (isIP(n)) p.ip.push(`${n}/${isIP(n) === 4 ? 32 : 128}`);
    else {
      p.dns.push(n);
      // A single label is a top-level domain to a verifier: the name itself, never what is under it.
      if (!n.includes('.')) {
        p.excluded ??= [];
        p.excluded.push(`.${n}`);
      }
    }
  }
  return p;
}

/** A CA's constraints held against the names the daemon is reached by. */
export interface NamesReview {
  /** What its certificate names: those the CA may certify. */
  certified: string[];
  /** The others, with the `--allowed-hosts` domains it may not certify. */
  outside: string[];
  replace: LocalCaJson['replace'];
}

/**
 * The server certificate's names (tls/names.ts `serverNames`) held against its CA's constraints
 * (null: none): it names only those the CA may certify, since a verifier refuses a certificate
 * with any name outside them. A new CA is advised when this one has no constraints, or when one
 * made now would cover a name this one does not (a public address on an interface it would not:
 * that is only reported).
 */
export function reviewNames(
  settings: NameSettings,
  ca: Permitted | null,
  names: string[],
  hostname: string = osHostname(),
): NamesReview {
  if (!ca) return { certified: names, outside: [], replace: 'unconstrained' };
  const wanted = [...new Set([...names, ...allowedHostEntries(settings.allowedHosts).domains])];
  const outside = wanted.filter((n) => !permits(ca, n));
  const fresh = permittedFor(settings, hostname);
  return {
    certified: names.filter((n) => permits(ca, n)),
    outside,
    replace: outside.some((n) => permits(fresh, n)) ? 'names_outside' : null,
  };
}

/** The critical NameConstraints extension that permits these subtrees and excludes none. */
export function nameConstraintsExtension(p: Permitted): x509.Extension {
  const subtree = (base: GeneralName) => new GeneralSubtree({ base });
  const permitted = new GeneralSubtrees([
    ...p.dns.map((dNSName) => subtree(new GeneralName({ dNSName }))),
    ...p.ip.map((iPAddress) => subtree(new GeneralName({ iPAddress }))),
  ]);
  const excluded = p.excluded?.length
    ? { excludedSubtrees: new GeneralSubtrees(p.excluded.map((dNSName) => subtree(new GeneralName({ dNSName })))) }
    : {};
  return new x509.Extension(
    id_ce_nameConstraints,
    true,
    AsnConvert.serialize(new NameConstraints({ permittedSubtrees: permitted, ...excluded })),
  );
}

/**
 * The permitted subtrees of a CA certificate's NameConstraints; null when it has none (a CA made before Boxyard's CAs
 * had constraints).
 */
export function constraintsOf(cert: x509.X509Certificate): Permitted | null {
  const ext = cert.getExtension(id_ce_nameConstraints);
  if (!ext) return null;
  const nc = AsnConvert.parse(ext.value, NameConstraints);
  const p: Permitted = { dns: [], ip: [] };
  for (const { base } of nc.permittedSubtrees ?? []) {
    if (base.dNSName !== undefined) p.dns.push(base.dNSName);
    else if (base.iPAddress !== undefined) p.ip.push(base.iPAddress);
  }
  for (const { base } of nc.excludedSubtrees ?? []) {
    if (base.dNSName === undefined) continue;
    p.excluded ??= [];
    p.excluded.push(base.dNSName);
  }
  return p;
}
