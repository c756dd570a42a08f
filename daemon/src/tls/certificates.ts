import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFile, unwatchFile, watchFile } from 'node:fs';
import { hostname } from 'node:os';
import { promisify } from 'node:util';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config';
import { newCaSteps } from '../contract/lan';
import type { LocalCaJson } from '../contract/wire/overview';
import { checkPrivate, LocalCa, SERVER_DAYS, TlsSetupError, type Replaced } from './local-ca';
import { fingerprintOf } from './fingerprint';
import { serverNames, type NameSettings } from './names';
import { permittedFor, reviewNames, type NamesReview } from './name-constraints';

const read = promisify(readFile);

/** The certificate the daemon serves now: its key, its chain (leaf first), and when it ends. */
export interface ServedCertificate { key: string; cert: string; notAfter: Date }

/** What /healthz and the overview say of the certificate. */
export interface TlsStatus { ok: boolean; mode: 'auto' | 'files' | 'acme'; not_after: string | null; message: string; local_ca?: LocalCaJson }

/**
 * Where the daemon's certificate comes from (issue 32: the daemon's own CA, the user's files, or
 * ACME: tls/acme.ts); the listener (tls/listener.ts) does not know which. `start` gives the first certificate
 * or throws what is wrong (the daemon does not start, never falling back to plain HTTP); later
 * certificates reach `onChange`.
 */
export interface CertificateSource {
  readonly mode: TlsStatus['mode'];
  /** Publicly trusted (ACME, the user's own): HSTS is sent only then. */
  readonly publicTrust: boolean;
  /** The local CA clients trust (auto only): served at /ca.pem, its fingerprint shown. */
  readonly ca: { pem: string; fingerprint: string } | null;
  start(onChange: (c: ServedCertificate) => void): Promise<ServedCertificate>;
  /** ACME only: the answer to an HTTP-01 challenge token being validated now. */
  challenge?(token: string): string | undefined;
  /** Reads or renews now (SIGHUP). */
  reload(): Promise<void>;
  status(): TlsStatus;
  stop(): void;
}

const RENEW_CHECK_MS = 3_600_000;
/** A certificate of the local CA is issued again this many days before it ends. */
const RENEW_DAYS = 30;

/**
 * `--tls auto`: the daemon's own CA issues its certificate, for every name LAN clients use that the
 * CA may certify (its name constraints: tls/name-constraints.ts), again when it nears its end or
 * the names change.
 */
export class AutoCertificates implements CertificateSource {
  readonly mode = 'auto';
  readonly publicTrust = false;
  ca: { pem: string; fingerprint: string } | null = null;
  private local?: LocalCa;
  private served?: ServedCertificate;
  private timer?: NodeJS.Timeout;
  private problem: string | null = null;
  private review?: NamesReview;
  private replaced: Replaced | null = null;

  constructor(private readonly o: { dataDir: string; settings: NameSettings & Pick<Config, 'port'>; log: Logger }) {}

  async start(onChange: (c: ServedCertificate) => void): Promise<ServedCertificate> {
    this.local = await LocalCa.open(join(this.o.dataDir, 'tls'), 'Boxyard', permittedFor(this.o.settings));
    this.ca = { pem: this.local.certPem, fingerprint: this.local.fingerprint };
    this.replaced = await this.local.replaced();
    this.served = await this.ensure();
    this.report();
    this.timer = setInterval(() => {
      const before = this.served;
      void this.reload().then(() => { if (this.served !== before && this.served?.cert !== before?.cert) onChange(this.served!); });
    }, RENEW_CHECK_MS);
    this.timer.unref();
    return this.served;
  }

  /** Issues a certificate again when the one on disk nears its end or lacks a name (a new address). */
  private async ensure(): Promise<ServedCertificate> {
    this.review = reviewNames(this.o.settings, this.local!.permitted, serverNames(this.o.settings));
    const names = this.review.certified;
    const have = await this.local!.current(names, RENEW_DAYS);
    if (have) return have;
    const issued = await this.local!.issue(names);
    this.o.log.info({ names, not_after: issued.notAfter }, 'issued a server certificate from the local CA');
    return issued;
  }

  /** Says at start what the CA's name constraints leave out, and when a new CA is advised how to make it (docs/https.md). */
  private report(): void {
    const { outside, replace } = this.review!;
    const server = this.o.settings.publicUrl ?? `https://${hostname()}:${this.o.settings.port}`;
    const steps = newCaSteps(server, this.o.dataDir).join('; ');
    if (replace === 'unconstrained') {
      this.o.log.warn({ fingerprint: this.ca!.fingerprint }, 'the local CA has no name constraints (it was made before Boxyard gave its CAs them): ' +
        `whoever copies its key can make a certificate for any site, which every client that trusts it accepts. It keeps working; to replace it: ${steps}`);
    } else if (replace === 'names_outside') {
      this.o.log.warn({ names: outside }, `the local CA's name constraints leave out ${outside.join(', ')}: they are not in the server certificate. A new CA covers them: ${steps}`);
    } else if (outside.length > 0) {
      this.o.log.info({ names: outside }, `left out of the server certificate, outside the local CA's name constraints: ${outside.join(', ')} (clients reach the daemon by its names and LAN addresses)`);
    }
    if (this.replaced) {
      this.o.log.info({ previous_fingerprint: this.replaced.previous_fingerprint, at: this.replaced.at },
        `this local CA was made by boxyard tls new-ca in place of another: clients that trusted that one must trust this one: npx boxyard trust ${server} --fingerprint ${this.ca!.fingerprint.replace(/:/g, '')}`);
    }
  }

  async reload(): Promise<void> {
    try {
      this.served = await this.ensure();
      this.problem = null;
    } catch (err) {
      this.problem = `renewing the certificate failed: ${(err as Error).message}`;
      this.o.log.error({ err }, 'renewing the local CA certificate failed; still serving the current one');
    }
  }

  status(): TlsStatus {
    const r = this.review;
    const local_ca = r && { name_constrained: this.local!.permitted !== null, names_outside: r.outside, replace: r.replace, replaced: this.replaced };
    return {
      ok: this.problem === null, mode: this.mode, not_after: this.served?.notAfter.toISOString() ?? null,
      message: this.problem ?? `local CA ${this.ca?.fingerprint ?? ''}, server certificate for ${SERVER_DAYS} days`, ...(local_ca ? { local_ca } : {}),
    };
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

/**
 * Checks a key and certificate chain as a start-up would: readable, the key closed to other users
 * (its group may read it), matching, in their dates.
 */
export async function loadCertificateFiles(certFile: string, keyFile: string, now = new Date()): Promise<ServedCertificate> {
  const text = async (f: string, what: string) => read(f, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new TlsSetupError(`Cannot read the TLS ${what} ${f}: ${err.code ?? err.message}.`);
  });
  const [cert, key] = await Promise.all([text(certFile, 'certificate'), text(keyFile, 'key')]);
  await checkPrivate(keyFile, 'file', 'group');
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(cert);
  } catch {
    throw new TlsSetupError(`${certFile} holds no PEM certificate.`);
  }
  let privateKey;
  try {
    privateKey = createPrivateKey(key);
  } catch {
    throw new TlsSetupError(`${keyFile} holds no PEM private key (an encrypted key is not supported).`);
  }
  if (!leaf.checkPrivateKey(privateKey)) throw new TlsSetupError(`${keyFile} is not the key of the certificate in ${certFile}.`);
  const notAfter = new Date(leaf.validTo);
  if (notAfter <= now) throw new TlsSetupError(`The certificate in ${certFile} expired on ${notAfter.toISOString()}.`);
  if (new Date(leaf.validFrom) > now) throw new TlsSetupError(`The certificate in ${certFile} is not valid before ${new Date(leaf.validFrom).toISOString()}.`);
  return { key, cert, notAfter };
}

const WATCH_MS = 5000;

/**
 * `--tls-cert FILE --tls-key FILE`: the user's own, read again on SIGHUP and when either file
 * changes, one reading after another (a SIGHUP and the file watch at once must not finish in the
 * wrong order); a bad new pair, or a key made readable by others, is logged and the old one kept.
 */
export class FileCertificates implements CertificateSource {
  readonly mode = 'files';
  readonly publicTrust = true;
  readonly ca = null;
  private served?: ServedCertificate;
  private onChange: (c: ServedCertificate) => void = () => {};
  private problem: string | null = null;
  private reading: Promise<void> = Promise.resolve();
  private readonly changed = () => void this.reload();

  constructor(private readonly o: { cert: string; key: string; log: Logger }) {}

  async start(onChange: (c: ServedCertificate) => void): Promise<ServedCertificate> {
    this.served = await loadCertificateFiles(this.o.cert, this.o.key);
    this.onChange = onChange;
    for (const f of [this.o.cert, this.o.key]) watchFile(f, { interval: WATCH_MS, persistent: false }, this.changed);
    return this.served;
  }

  reload(): Promise<void> {
    this.reading = this.reading.then(() => this.readAgain());
    return this.reading;
  }

  private async readAgain(): Promise<void> {
    try {
      const next = await loadCertificateFiles(this.o.cert, this.o.key);
      this.problem = null;
      if (next.cert === this.served?.cert && next.key === this.served.key) return;
      this.served = next;
      this.o.log.info({ cert: this.o.cert, fingerprint: fingerprintOf(next.cert), not_after: next.notAfter }, 'reloaded the TLS certificate');
      this.onChange(next);
    } catch (err) {
      this.problem = `the certificate files could not be reloaded: ${(err as Error).message} (still serving the one read before)`;
      this.o.log.error({ err }, 'reloading the TLS certificate failed; still serving the one read before');
    }
  }

  status(): TlsStatus {
    return { ok: this.problem === null, mode: this.mode, not_after: this.served?.notAfter.toISOString() ?? null, message: this.problem ?? `certificate ${this.o.cert}` };
  }

  stop(): void {
    for (const f of [this.o.cert, this.o.key]) unwatchFile(f, this.changed);
  }
}
