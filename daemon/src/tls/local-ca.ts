import { webcrypto, X509Certificate as NodeX509 } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { isIP } from 'node:net';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';
import type { LocalCaJson } from '../contract/wire/overview';
import { normalizeHost } from '../lib/host-names';
import { SHARED_FILE, writeFileAtomically } from '../lib/private-files';
import { CA_FILE, fingerprintOf } from './fingerprint';
import { constraintsOf, nameConstraintsExtension, type Permitted } from './name-constraints';
import { checkPair, checkPrivate, PairError, privateFolder, TlsSetupError } from './private-files';

/**
 * `--tls auto`: a certificate authority of the daemon's own, kept in `DATA/tls/` (the folder 0700,
 * the keys 0600), which issues the daemon its server certificate, as Caddy's internal CA does.
 * The CA lasts ten years and stays the same, so clients trust it once (its SHA-256 fingerprint is
 * what they check); server certificates last 90 days and are issued again before that
 * (tls/maintenance.ts), or when the names they must carry change. Keys are ECDSA P-256. A CA made
 * with name constraints carries them (tls/name-constraints.ts); one made before has none and keeps working, until
 * `boxyard tls new-ca` replaces it (`LocalCa.replace`).
 */
const CA_KEY = 'ca-key.pem';
const SERVER_FILE = 'server.pem';
const SERVER_KEY = 'server-key.pem';
/**
 * Written by `LocalCa.replace`: when, the fingerprint of the CA it replaced, and of the CA it made (a CA made otherwise
 * since is not that one).
 */
const REPLACED = 'replaced.json';

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY = 86_400_000;
const CA_DAYS = 3650;
export const SERVER_DAYS = 90;

export interface IssuedCertificate {
  key: string;
  cert: string;
  notBefore: Date;
  notAfter: Date;
  names: string[];
}

/**
 * When `boxyard tls new-ca` made the CA, and the fingerprint of the one before: clients that trusted that one must
 * trust the new one.
 */
export type Replaced = NonNullable<LocalCaJson['replaced']>;

/** The CA's certificate and key checked as a pair (not its dates: its clients check those). */
function caPair(certPem: string, keyPem: string, certPath: string, keyPath: string) {
  try {
    return checkPair(certPem, keyPem, null, { names: { cert: certPath, key: keyPath } });
  } catch (err) {
    if (err instanceof PairError && err.fault === 'mismatch') {
      throw new TlsSetupError(
        `${keyPath} is not the key of ${certPath}: restore the pair, or make a new CA with boxyard tls new-ca (clients must then trust it again).`,
      );
    }
    throw err;
  }
}

const toPem = (label: string, der: ArrayBuffer) => x509.PemConverter.encode(der, label);

export class LocalCa {
  private constructor(
    readonly dir: string,
    readonly certPem: string,
    private readonly caCert: x509.X509Certificate,
    private readonly signingKey: webcrypto.CryptoKey,
    /** What it may certify; null: anything (a CA made before Boxyard's CAs had constraints). */
    readonly permitted: Permitted | null,
  ) {}

  get fingerprint(): string {
    return fingerprintOf(this.certPem);
  }

  /**
   * The CA of `dir` (DATA/tls), made on first use with the constraints `permitted` (null: none, a
   * CA for any name, as before Boxyard's CAs had constraints: test CAs); one already there is kept as it is. Refused
   * when its folder or key is open to others, or the key is not the certificate's.
   */
  static async open(dir: string, name: string, permitted: Permitted | null): Promise<LocalCa> {
    await privateFolder(dir);
    const certPath = join(dir, CA_FILE);
    const keyPath = join(dir, CA_KEY);
    const [certPem, keyPem] = await Promise.all([
      readFile(certPath, 'utf8').catch(() => null),
      readFile(keyPath, 'utf8').catch(() => null),
    ]);
    if (certPem && keyPem) {
      await checkPrivate(keyPath, 'file');
      const pair = caPair(certPem, keyPem, certPath, keyPath);
      const key = await webcrypto.subtle.importKey(
        'pkcs8',
        pair.key.export({ format: 'der', type: 'pkcs8' }),
        ALG,
        false,
        ['sign'],
      );
      const cert = new x509.X509Certificate(certPem);
      return new LocalCa(dir, certPem, cert, key, constraintsOf(cert));
    }
    if (certPem || keyPem)
      throw new TlsSetupError(
        `${dir} holds only one of ${CA_FILE} and ${CA_KEY}: restore the other, or make a new CA with boxyard tls new-ca (clients must then trust it again).`,
      );
    return LocalCa.create(dir, name, permitted);
  }

  /**
   * `boxyard tls new-ca`: a new CA with the constraints `permitted` in place of the one in `dir`,
   * whose key and server certificate are removed (the daemon issues one from the new CA when it
   * starts). Records the fingerprint it replaced, which the daemon reports.
   */
  static async replace(dir: string, name: string, permitted: Permitted): Promise<LocalCa> {
    await privateFolder(dir);
    const old = await readFile(join(dir, CA_FILE), 'utf8').catch(() => null);
    const replaced: Replaced = { at: new Date().toISOString(), previous_fingerprint: old ? fingerprintOf(old) : null };
    await Promise.all([SERVER_FILE, SERVER_KEY, CA_KEY, CA_FILE].map((f) => rm(join(dir, f), { force: true })));
    const ca = await LocalCa.create(dir, name, permitted);
    const record = `${JSON.stringify({ ...replaced, fingerprint: ca.fingerprint })}\n`;
    await writeFileAtomically(join(dir, REPLACED), record, { mode: SHARED_FILE });
    return ca;
  }

  /**
   * When `boxyard tls new-ca` made this CA, and the fingerprint of the one before; null: it was made on a first start.
   */
  async replaced(): Promise<Replaced | null> {
    const text = await readFile(join(this.dir, REPLACED), 'utf8').catch(() => null);
    if (!text) return null;
    try {
      const r = JSON.parse(text) as Partial<Replaced> & { fingerprint?: string };
      return typeof r.at === 'string' && r.fingerprint === this.fingerprint
        ? { at: r.at, previous_fingerprint: r.previous_fingerprint ?? null }
        : null;
    } catch {
      return null;
    }
  }

  private static async create(dir: string, name: string, permitted: Permitted | null): Promise<LocalCa> {
    const keys = await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']);
    const now = Date.now();
    // Dated: a client's store that holds a replaced CA beside its successor tells them apart.
    const made = new Date(now).toISOString().slice(0, 10);
    const cert = await x509.X509CertificateGenerator.createSelfSigned(
      {
        name: `CN=${name} local CA ${made}, O=Boxyard`,
        keys,
        signingAlgorithm: ALG,
        notBefore: new Date(now - DAY),
        notAfter: new Date(now + CA_DAYS * DAY),
        extensions: [
          new x509.BasicConstraintsExtension(true, 0, true),
          new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
          await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
          ...(permitted ? [nameConstraintsExtension(permitted)] : []),
        ],
      },
      webcrypto as never,
    );
    // The key before the certificate: a CA file is never there without its key.
    await writeFileAtomically(
      join(dir, CA_KEY),
      toPem('PRIVATE KEY', await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)),
    );
    await writeFileAtomically(join(dir, CA_FILE), cert.toString('pem'), { mode: SHARED_FILE });
    return new LocalCa(dir, cert.toString('pem'), cert, keys.privateKey, permitted);
  }

  /**
   * The server certificate on disk, if this CA signed it, it names exactly `names`, and its key and dates pass at
   * `now`.
   */
  async current(names: string[], now: Date): Promise<IssuedCertificate | null> {
    const [cert, key] = await Promise.all([
      readFile(join(this.dir, SERVER_FILE), 'utf8').catch(() => null),
      readFile(join(this.dir, SERVER_KEY), 'utf8').catch(() => null),
    ]);
    if (!cert || !key) return null;
    try {
      const { leaf, notBefore, notAfter } = checkPair(cert, key, now, { early: 'allowed' });
      const has = new Set(sanNames(leaf.subjectAltName ?? '').map(normalizeHost));
      // Signed by this CA's key: one left from a CA that was replaced is issued again.
      if (!leaf.verify(new NodeX509(this.certPem).publicKey)) return null;
      if (names.some((n) => !has.has(n)) || has.size !== names.length) return null;
      return { key, cert: `${cert.trim()}\n${this.certPem.trim()}\n`, notBefore, notAfter, names };
    } catch {
      return null;
    }
  }

  /** Issues (and keeps) a server certificate for `names`: host names and addresses. */
  async issue(names: string[]): Promise<IssuedCertificate> {
    const keys = await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']);
    // Whole seconds, as the certificate keeps them: the dates returned are the certificate's.
    const now = Math.floor(Date.now() / 1000) * 1000;
    const notBefore = new Date(now - DAY);
    const notAfter = new Date(now + SERVER_DAYS * DAY);
    const cert = await x509.X509CertificateGenerator.create(
      {
        subject: `CN=${names[0]}`,
        issuer: this.caCert.subject,
        publicKey: keys.publicKey,
        signingKey: this.signingKey,
        signingAlgorithm: ALG,
        notBefore,
        notAfter,
        extensions: [
          new x509.BasicConstraintsExtension(false, undefined, true),
          new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
          new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
          new x509.SubjectAlternativeNameExtension(
            names.map((n) => (isIP(n) ? { type: 'ip' as const, value: n } : { type: 'dns' as const, value: n })),
          ),
          await x509.AuthorityKeyIdentifierExtension.create(this.caCert, false, webcrypto as never),
          await x509.SubjectKeyIdentifierExtension.create(keys.publicKey, false, webcrypto as never),
        ],
      },
      webcrypto as never,
    );
    const key = toPem('PRIVATE KEY', await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
    await writeFileAtomically(join(this.dir, SERVER_KEY), key);
    await writeFileAtomically(join(this.dir, SERVER_FILE), cert.toString('pem'), { mode: SHARED_FILE });
    return { key, cert: `${cert.toString('pem').trim()}\n${this.certPem.trim()}\n`, notBefore, notAfter, names };
  }
}

/** `DNS:a, IP Address:1.2.3.4` (Node's subjectAltName) → the names and addresses. */
export function sanNames(alt: string): string[] {
  return alt
    .split(/,\s*/)
    .filter(Boolean)
    .map((e) => e.replace(/^(DNS|IP Address):/, ''));
}
