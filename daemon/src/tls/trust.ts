import { X509Certificate } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { request } from 'node:https';
import { request as plainRequest } from 'node:http';
import { PemConverter } from '@peculiar/x509';
import { ROOT } from '../http/route-table';
import { trustLines } from '../contract/lan';
import { SHARED_FILE, writeFileAtomically } from '../lib/private-files';
import { caBundle } from './client-fetch';
import { fingerprintOf } from './fingerprint';

const hex = (fp: string) => fp.replace(/[^0-9a-f]/gi, '').toUpperCase();

/** GET without checking the server's certificate: what it sends is checked against the fingerprint instead. */
function fetchUnverified(url: URL): Promise<string> {
  return new Promise((resolve, reject) => {
    const send = url.protocol === 'https:' ? request : plainRequest;
    const req = send(url, { rejectUnauthorized: false, timeout: 15_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        res.statusCode === 200
          ? resolve(Buffer.concat(chunks).toString('utf8'))
          : reject(new Error(`${url} answered ${res.statusCode}: is the daemon started with --tls auto?`)),
      );
    });
    req.on('timeout', () => req.destroy(new Error(`${url} did not answer within 15 s`)));
    req.on('error', (err) => reject(new Error(`cannot reach ${url}: ${err.message}`)));
    req.end();
  });
}

/** Each `-----BEGIN …-----` line: a PEM block of any kind (certificate, key, anything else). */
const PEM_BLOCK = /-----BEGIN /g;

/**
 * `boxyard trust URL --fingerprint SHA256`: fetches the daemon's CA (`/ca.pem`), checks its
 * SHA-256 fingerprint against the one the daemon printed (or its overview page shows), and writes
 * a CA bundle for client tools: the public CAs and this one (tls/client-fetch.ts's `caBundle`, what
 * Boxyard's own clients trust with `--ca-file`, on every system), so `SSL_CERT_FILE` trusts both.
 * Only what was checked is written: the body must be one PEM block, a CA certificate
 * (basicConstraints CA:TRUE), and the bundle gets that certificate encoded again from its DER
 * bytes, never the text received (anything a man in the middle appended stays out).
 * Answers the lines to set it up.
 */
export async function trust(server: string, fingerprint: string, out: string): Promise<string[]> {
  const url = new URL(ROOT.caPem.path, `${server.replace(/\/+$/, '')}/`);
  const pem = await fetchUnverified(url);
  const blocks = pem.match(PEM_BLOCK)?.length ?? 0;
  if (blocks > 1) {
    throw new Error(
      `${url} sent ${blocks} PEM blocks where a Boxyard daemon sends its one CA certificate: do not trust it (someone may be in between, adding a CA of their own). Nothing was written.`,
    );
  }
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(pem);
  } catch {
    throw new Error(`${url} sent no PEM certificate`);
  }
  // What the bundle gets: the certificate encoded again from its DER bytes, and so its fingerprint.
  const checked = PemConverter.encode(cert.raw, 'CERTIFICATE');
  // Shown in pairs of hex digits, AB:CD:…, as the daemon prints it.
  const shown = fingerprintOf(checked);
  const actual = hex(shown);
  if (hex(fingerprint) !== actual) {
    throw new Error(
      `the CA at ${url} has the fingerprint ${shown}, not the one given: do not trust it (someone may be in between), and check the fingerprint the daemon printed`,
    );
  }
  if (!cert.ca) {
    throw new Error(
      `the certificate at ${url} has the fingerprint given but is not a CA certificate (its basicConstraints lack CA:TRUE): it cannot vouch for the daemon's certificate, so it is not trusted. Nothing was written. Give the fingerprint of the daemon's CA, as the daemon printed it at start.`,
    );
  }
  const bundle = caBundle(`# Boxyard local CA of ${url.origin}, fingerprint ${actual}\n${checked.trim()}`);
  await mkdir(dirname(out), { recursive: true });
  // Other users' tools may read it (a CA bundle holds no secret).
  await writeFileAtomically(out, `${bundle.map((pem) => pem.trim()).join('\n')}\n`, { mode: SHARED_FILE });
  return [
    `trusted ${cert.subject.replace(/\n/g, ', ')} (${shown}); CA bundle written to ${out}`,
    ...trustLines(url.origin, out),
  ];
}
