import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { rootCertificates } from 'node:tls';
import { loadUndici } from '../lib/lazy-modules';

/**
 * fetch for Boxyard's own clients (`boxyard agent`, `mirror`, `import`, `export`): with
 * `--ca-file`, one that trusts that CA besides the system's (a daemon on `--tls auto`), on one
 * keep-alive connection pool, so an agent reporting every 10 s pays one handshake, not one per
 * report. Without: Node's fetch (its pool keeps connections alive too).
 */
export async function clientFetch(caFile: string | undefined): Promise<typeof fetch> {
  if (!caFile) return fetch;
  const ca = await readCaFile(caFile);
  const undici = await loadUndici();
  const dispatcher = new undici.Agent({ connect: { ca: caBundle(ca) } });
  return ((input: string | URL, init?: RequestInit) =>
    undici.fetch(input, { ...(init as object), dispatcher })) as unknown as typeof fetch;
}

/** Where Linux distributions, macOS and the BSDs keep the system's CA bundle. */
export const SYSTEM_BUNDLES = [
  '/etc/ssl/certs/ca-certificates.crt',
  '/etc/pki/tls/certs/ca-bundle.crt',
  '/etc/ssl/cert.pem',
];

/**
 * The system's CAs: its bundle file where it has one (with any CA its administrator added, such as
 * a company's), else Node's own list (Mozilla's, as on Windows).
 */
export function systemCas(bundles: readonly string[] = SYSTEM_BUNDLES): string[] {
  for (const file of bundles) {
    try {
      const text = readFileSync(file, 'utf8');
      if (text.includes('-----BEGIN CERTIFICATE-----')) return [text];
    } catch {
      // not this system's place for it
    }
  }
  return [...rootCertificates];
}

/**
 * The CAs a client trusts when told of one more (`--ca-file`, `--acme-ca-file`, an upstream's own
 * CA, the bundle `boxyard trust` writes): the system's and that one, where giving `ca` alone would
 * drop the system's.
 */
export const caBundle = (extraPem: string, bundles?: readonly string[]): string[] => [...systemCas(bundles), extraPem];

/** A CA file's PEM text, or an error that says what is wrong with it. */
export async function readCaFile(caFile: string): Promise<string> {
  const text = await readFile(caFile, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new Error(`cannot read the CA file ${caFile}: ${err.code ?? err.message}`);
  });
  if (!text.includes('-----BEGIN CERTIFICATE-----'))
    throw new Error(`${caFile} holds no PEM certificate (get it with: boxyard trust URL --fingerprint …)`);
  return text;
}
