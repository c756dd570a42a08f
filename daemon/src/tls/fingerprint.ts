import { createHash, X509Certificate } from 'node:crypto';
import { join } from 'node:path';

/** The CA certificate `--tls auto` keeps in the data folder (tls/local-ca.ts); the desktop app trusts it too. */
export const CA_FILE = 'ca.pem';
export const caCertificateFile = (dataDir: string): string => join(dataDir, 'tls', CA_FILE);

/** Upper-case hex pairs joined by colons, as browsers and `openssl x509 -fingerprint -sha256` show it. */
export function fingerprintOf(pem: string): string {
  const der = new X509Certificate(pem).raw;
  return createHash('sha256').update(der).digest('hex').toUpperCase().match(/../g)!.join(':');
}
