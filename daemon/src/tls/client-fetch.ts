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

/**
 * The CAs a client trusts when told of one more (`--ca-file`, `--acme-ca-file`, an upstream's own
 * CA): Node's system CAs and that one, where giving `ca` alone would drop the system's.
 */
export const caBundle = (extraPem: string): string[] => [...rootCertificates, extraPem];

/** A CA file's PEM text, or an error that says what is wrong with it. */
export async function readCaFile(caFile: string): Promise<string> {
  const text = await readFile(caFile, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new Error(`cannot read the CA file ${caFile}: ${err.code ?? err.message}`);
  });
  if (!text.includes('-----BEGIN CERTIFICATE-----'))
    throw new Error(`${caFile} holds no PEM certificate (get it with: boxyard trust URL --fingerprint …)`);
  return text;
}
