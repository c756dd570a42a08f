import { X509Certificate } from 'node:crypto';
import { basename } from 'node:path';
import { LOCAL_CA_FILE } from '../contract/lan';

/** The CA certificate `--tls auto` keeps in the data folder (tls/local-ca.ts): its file name there. */
export const CA_FILE = basename(LOCAL_CA_FILE);

/** Upper-case hex pairs joined by colons, as browsers and `openssl x509 -fingerprint -sha256` show it (Node's own). */
export const fingerprintOf = (pem: string): string => new X509Certificate(pem).fingerprint256;
