import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { mkdir, stat } from 'node:fs/promises';
import { PRIVATE_DIR } from '../lib/private-files';

/**
 * What `DATA/tls/` keeps and how: its folders and key files, who may read them, and the check a
 * key and its certificate pass before either is served or signs. They are written as every file
 * the daemon replaces is, by lib/private-files.ts's `writeFileAtomically` (keys 0600, certificates
 * and records `SHARED_FILE`, 0644).
 */

/** What stops a start (or a reload) with HTTPS: the message says what to do. */
export class TlsSetupError extends Error {}

/**
 * Who besides its owner may reach a private key or its folder: nobody (the keys the daemon makes
 * itself, and their folders), or the file's group too (a key file of the user's own, `--tls-key`:
 * Debian's ssl-cert group reads /etc/ssl/private, as PostgreSQL and OpenSSH allow).
 */
export type SharedWith = 'nobody' | 'group';

/** The mode bits each refuses: any group or other bit; any other bit. */
const REFUSED: Record<SharedWith, number> = { nobody: 0o077, group: 0o007 };

/**
 * Refuses a folder or key file open to more than `sharedWith` allows (the mode bits of what the
 * path leads to, a link followed), saying the chmod that fixes it: a CA key signs whatever the
 * daemon's clients trust, a server key is the daemon's identity (an ACME key its account).
 */
export async function checkPrivate(
  path: string,
  kind: 'folder' | 'file',
  sharedWith: SharedWith = 'nobody',
): Promise<void> {
  const s = await stat(path);
  if ((s.mode & REFUSED[sharedWith]) === 0) return;
  const want = kind === 'folder' ? '0700' : sharedWith === 'group' ? '640' : '0600';
  const who = sharedWith === 'group' ? 'users outside its owner and group' : 'other users';
  const holds = kind === 'folder' ? "Boxyard's TLS keys" : 'a TLS private key';
  const or = sharedWith === 'group' ? ', or 600 if its group need not read it' : '';
  throw new TlsSetupError(
    `${path} is open to ${who} (mode ${(s.mode & 0o777).toString(8)}); it holds ${holds}, which whoever reads it may have copied. Make it ${want} (chmod ${want} ${path}${or}).`,
  );
}

/**
 * A folder for keys: made 0700 when missing, refused when open to others. Not lib/private-files.ts's
 * `privateDir`, which makes a folder of the daemon's private by a chmod: a key folder found open is
 * the user's to look at (its keys may have been copied), so it is refused, not quietly closed.
 */
export async function privateFolder(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: PRIVATE_DIR });
  await checkPrivate(dir, 'folder');
}

/** Which check a pair failed. */
export type PairFault = 'certificate' | 'key' | 'mismatch' | 'expired' | 'not_yet_valid';

export class PairError extends TlsSetupError {
  constructor(
    readonly fault: PairFault,
    message: string,
  ) {
    super(message);
  }
}

/** A certificate (its chain, leaf first) and its key that passed `checkPair`. */
export interface CheckedPair {
  leaf: X509Certificate;
  key: KeyObject;
  notBefore: Date;
  notAfter: Date;
}

/**
 * The one check of a key and its certificate: both parse (PEM; an encrypted key is not
 * supported), the key is the certificate's, and `at` is within its dates (`at` null: dates not
 * checked, for a CA, which is checked by the clients that trust it). `names` are what messages
 * call the two (file names, by default "the certificate" and "the key"). `early: 'allowed'`
 * passes one not valid yet: a certificate the daemon got itself, from a CA whose clock is ahead
 * (pebble's starts at the second it is issued), would otherwise be ordered again at once.
 */
export function checkPair(
  cert: string,
  key: string,
  at: Date | null,
  opts: { names?: { cert: string; key: string }; early?: 'refused' | 'allowed' } = {},
): CheckedPair {
  const names = opts.names ?? { cert: 'the certificate', key: 'the key' };
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(cert);
  } catch {
    throw new PairError('certificate', `${names.cert} holds no PEM certificate.`);
  }
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(key);
  } catch {
    throw new PairError('key', `${names.key} holds no PEM private key (an encrypted key is not supported).`);
  }
  if (!leaf.checkPrivateKey(privateKey))
    throw new PairError('mismatch', `${names.key} is not the key of the certificate in ${names.cert}.`);
  const notBefore = new Date(leaf.validFrom);
  const notAfter = new Date(leaf.validTo);
  if (at && notAfter <= at)
    throw new PairError('expired', `The certificate in ${names.cert} expired on ${notAfter.toISOString()}.`);
  if (at && notBefore > at && opts.early !== 'allowed')
    throw new PairError(
      'not_yet_valid',
      `The certificate in ${names.cert} is not valid before ${notBefore.toISOString()}.`,
    );
  return { leaf, key: privateKey, notBefore, notAfter };
}
