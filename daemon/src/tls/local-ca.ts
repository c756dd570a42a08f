import { createPrivateKey, webcrypto, X509Certificate as NodeX509 } from 'node:crypto';
import { chmod, mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';
import { normalName } from './names';
import { CA_FILE, fingerprintOf } from './fingerprint';

/**
 * `--tls auto`: a certificate authority of the daemon's own, kept in `DATA/tls/` (the folder 0700,
 * the keys 0600), which issues the daemon its server certificate, as Caddy's internal CA does.
 * The CA lasts ten years and stays the same, so clients trust it once (its SHA-256 fingerprint is
 * what they check); server certificates last 90 days and are issued again before that, or when
 * the names they must carry change. Keys are ECDSA P-256.
 */
const CA_KEY = 'ca-key.pem';
const SERVER_FILE = 'server.pem';
const SERVER_KEY = 'server-key.pem';

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY = 86_400_000;
const CA_DAYS = 3650;
export const SERVER_DAYS = 90;

export interface IssuedCertificate { key: string; cert: string; notAfter: Date; names: string[] }

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
export async function checkPrivate(path: string, kind: 'folder' | 'file', sharedWith: SharedWith = 'nobody'): Promise<void> {
  const s = await stat(path);
  if ((s.mode & REFUSED[sharedWith]) === 0) return;
  const want = kind === 'folder' ? '0700' : sharedWith === 'group' ? '640' : '0600';
  const who = sharedWith === 'group' ? 'users outside its owner and group' : 'other users';
  const holds = kind === 'folder' ? "Boxyard's TLS keys" : 'a TLS private key';
  const or = sharedWith === 'group' ? ', or 600 if its group need not read it' : '';
  throw new TlsSetupError(`${path} is open to ${who} (mode ${(s.mode & 0o777).toString(8)}); it holds ${holds}, which whoever reads it may have copied. Make it ${want} (chmod ${want} ${path}${or}).`);
}

export async function writePrivate(path: string, text: string): Promise<void> {
  await writeFile(`${path}.tmp`, text, { mode: 0o600 });
  await chmod(`${path}.tmp`, 0o600);
  await rename(`${path}.tmp`, path);
}

const toPem = (label: string, der: ArrayBuffer) => x509.PemConverter.encode(der, label);

export class LocalCa {
  private constructor(
    readonly dir: string,
    readonly certPem: string,
    private readonly caCert: x509.X509Certificate,
    private readonly signingKey: webcrypto.CryptoKey,
  ) {}

  get fingerprint(): string {
    return fingerprintOf(this.certPem);
  }

  /** The CA of `dir` (DATA/tls), made on first use; refused when its folder or key is open to others. */
  static async open(dir: string, name: string): Promise<LocalCa> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await checkPrivate(dir, 'folder');
    const certPath = join(dir, CA_FILE);
    const keyPath = join(dir, CA_KEY);
    const [certPem, keyPem] = await Promise.all([readFile(certPath, 'utf8').catch(() => null), readFile(keyPath, 'utf8').catch(() => null)]);
    if (certPem && keyPem) {
      await checkPrivate(keyPath, 'file');
      const key = await webcrypto.subtle.importKey('pkcs8', createPrivateKey(keyPem).export({ format: 'der', type: 'pkcs8' }), ALG, false, ['sign']);
      return new LocalCa(dir, certPem, new x509.X509Certificate(certPem), key);
    }
    if (certPem || keyPem) throw new TlsSetupError(`${dir} holds only one of ${CA_FILE} and ${CA_KEY}: restore the other, or remove both to make a new CA (clients must then trust it again).`);
    const keys = await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']);
    const now = Date.now();
    const cert = await x509.X509CertificateGenerator.createSelfSigned({
      name: `CN=${name} local CA, O=Boxyard`, keys, signingAlgorithm: ALG,
      notBefore: new Date(now - DAY), notAfter: new Date(now + CA_DAYS * DAY),
      extensions: [
        new x509.BasicConstraintsExtension(true, 0, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      ],
    }, webcrypto as never);
    await writePrivate(keyPath, toPem('PRIVATE KEY', await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)));
    await writeFile(certPath, cert.toString('pem'), { mode: 0o644 });
    return new LocalCa(dir, cert.toString('pem'), cert, keys.privateKey);
  }

  /** The server certificate on disk, if it is still good for `days` more and names exactly `names`. */
  async current(names: string[], days: number): Promise<IssuedCertificate | null> {
    const [cert, key] = await Promise.all([readFile(join(this.dir, SERVER_FILE), 'utf8').catch(() => null), readFile(join(this.dir, SERVER_KEY), 'utf8').catch(() => null)]);
    if (!cert || !key) return null;
    try {
      const parsed = new NodeX509(cert);
      const has = new Set(sanNames(parsed.subjectAltName ?? '').map(normalName));
      const notAfter = new Date(parsed.validTo);
      if (!parsed.checkIssued(new NodeX509(this.certPem)) || !parsed.checkPrivateKey(createPrivateKey(key))) return null;
      if (notAfter.getTime() - Date.now() < days * DAY || names.some((n) => !has.has(n)) || has.size !== names.length) return null;
      return { key, cert: `${cert.trim()}\n${this.certPem.trim()}\n`, notAfter, names };
    } catch {
      return null;
    }
  }

  /** Issues (and keeps) a server certificate for `names`: host names and addresses. */
  async issue(names: string[]): Promise<IssuedCertificate> {
    const keys = await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']);
    const now = Date.now();
    const notAfter = new Date(now + SERVER_DAYS * DAY);
    const cert = await x509.X509CertificateGenerator.create({
      subject: `CN=${names[0]}`, issuer: this.caCert.subject, publicKey: keys.publicKey, signingKey: this.signingKey, signingAlgorithm: ALG,
      notBefore: new Date(now - DAY), notAfter,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
        new x509.SubjectAlternativeNameExtension(names.map((n) => (isIP(n) ? { type: 'ip' as const, value: n } : { type: 'dns' as const, value: n }))),
        await x509.AuthorityKeyIdentifierExtension.create(this.caCert, false, webcrypto as never),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey, false, webcrypto as never),
      ],
    }, webcrypto as never);
    const key = toPem('PRIVATE KEY', await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
    await writePrivate(join(this.dir, SERVER_KEY), key);
    await writeFile(join(this.dir, SERVER_FILE), cert.toString('pem'), { mode: 0o644 });
    return { key, cert: `${cert.toString('pem').trim()}\n${this.certPem.trim()}\n`, notAfter, names };
  }
}

/** `DNS:a, IP Address:1.2.3.4` (Node's subjectAltName) → the names and addresses. */
export function sanNames(alt: string): string[] {
  return alt.split(/,\s*/).filter(Boolean).map((e) => e.replace(/^(DNS|IP Address):/, ''));
}
