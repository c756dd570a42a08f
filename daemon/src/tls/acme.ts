import { createPrivateKey, X509Certificate } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { Agent } from 'node:https';
import { rootCertificates } from 'node:tls';
import { basename, dirname, join } from 'node:path';
import { ACME_CERT_FILE } from '../contract/lan';
import type { Logger } from 'pino';
import type { Clock } from '../lib/clock';
import { loadAcmeClient } from '../lib/lazy-modules';
import type { CertificateSource, ServedCertificate, TlsStatus } from './certificates';
import { clientFetch, readCaFile } from './client-fetch';
import { checkPrivate, TlsSetupError, writePrivate } from './local-ca';
import { fingerprintOf } from './fingerprint';

const ACCOUNT_KEY = 'account-key.pem';
/** The account's URL at its directory: later orders use it instead of registering again. */
const ACCOUNT = 'account.json';
const KEY = 'key.pem';
const CERT = basename(ACME_CERT_FILE);
/** Which directory and name the stored certificate is for: another of either asks for a new one. */
const ORDER = 'order.json';

const CHECK_MS = 3_600_000;
const FIRST_RETRY_MS = 60_000;

export interface AcmeOptions {
  dataDir: string;
  /** The name in the public URL: the certificate is for it. */
  name: string;
  directory: string;
  email?: string;
  /** The directory's own CA (a private ACME server: step-ca, pebble), trusted besides the system's. */
  caFile?: string;
  log: Logger;
  clock: Clock;
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * `--tls acme`: a certificate for the public URL's name from an ACME CA (Let's Encrypt by
 * default), through acme-client, with the HTTP-01 challenge answered on `--http-port` (80 unless
 * told: app.ts serves `challenge()` there). Kept in DATA/tls/acme/ (0700, keys 0600) with the
 * account key, so a restart serves it again. Renewed once a third of its life is left, checked
 * hourly; a failed renewal keeps the current one, is logged, retried (1 minute, doubling to an
 * hour) and makes /healthz `degraded`. Without a certificate at start, failing to get one stops the
 * start: never plain HTTP instead.
 */
export class AcmeCertificates implements CertificateSource {
  readonly mode = 'acme';
  readonly publicTrust = true;
  readonly ca = null;
  private readonly dir: string;
  private readonly challenges = new Map<string, string>();
  private served?: ServedCertificate;
  private onChange: (c: ServedCertificate) => void = () => {};
  private problem: string | null = null;
  private failures = 0;
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private running?: Promise<void>;

  constructor(private readonly o: AcmeOptions) {
    this.dir = join(o.dataDir, dirname(ACME_CERT_FILE));
  }

  /** The key authorization for an HTTP-01 token being validated now. */
  challenge(token: string): string | undefined {
    return this.challenges.get(token);
  }

  async start(onChange: (c: ServedCertificate) => void): Promise<ServedCertificate> {
    for (const d of [join(this.o.dataDir, 'tls'), this.dir]) {
      await mkdir(d, { recursive: true, mode: 0o700 });
      await checkPrivate(d, 'folder');
    }
    this.onChange = onChange;
    this.served = (await this.stored()) ?? (await this.obtain().catch((err: unknown) => {
      throw new TlsSetupError(`Could not get a certificate for ${this.o.name} from the ACME directory ${this.o.directory}: ${messageOf(err)}. ` +
        `Check that the directory is reachable and that ${this.o.name} resolves to this machine with its --http-port (80 unless set) reachable from the internet.`);
    }));
    this.schedule(this.due() ? 0 : CHECK_MS);
    return this.served;
  }

  /** SIGHUP: renews now if it is due (or waits for the renewal already running). */
  reload(): Promise<void> {
    clearTimeout(this.timer);
    return this.tick();
  }

  status(): TlsStatus {
    const message = this.problem ?? `certificate for ${this.o.name} from ${this.o.directory}`;
    return { ok: this.problem === null, mode: this.mode, not_after: this.served?.notAfter.toISOString() ?? null, message };
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /** Due once less than a third of the certificate's life is left (30 days of Let's Encrypt's 90). */
  private due(): boolean {
    if (!this.served) return true;
    const from = new Date(new X509Certificate(this.served.cert).validFrom).getTime();
    const to = this.served.notAfter.getTime();
    return to - this.o.clock.now().getTime() < (to - from) / 3;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.tick(), ms);
    this.timer.unref();
  }

  /** One check (and renewal) at a time: a SIGHUP during a scheduled renewal joins it. */
  private tick(): Promise<void> {
    this.running ??= this.check().finally(() => { this.running = undefined; });
    return this.running;
  }

  private async check(): Promise<void> {
    if (this.stopped) return;
    clearTimeout(this.timer);
    if (this.due()) {
      try {
        const next = await this.obtain();
        if (this.stopped) return;
        this.served = next;
        this.problem = null;
        this.failures = 0;
        this.onChange(next);
      } catch (err) {
        const wait = Math.min(FIRST_RETRY_MS * 2 ** this.failures++, CHECK_MS);
        this.problem = `renewing the certificate through ${this.o.directory} failed: ${messageOf(err)}; retrying in ${Math.round(wait / 1000)} s (still serving the current one until ${this.served?.notAfter.toISOString()})`;
        this.o.log.error({ err, retry_in_s: wait / 1000 }, 'renewing the ACME certificate failed; still serving the current one');
        return this.schedule(wait);
      }
    }
    this.schedule(CHECK_MS);
  }

  /** The stored certificate when it is for this directory and name, matches its key and has not ended. */
  private async stored(): Promise<ServedCertificate | null> {
    const read = (f: string) => readFile(join(this.dir, f), 'utf8').catch(() => null);
    const [cert, key, order] = await Promise.all([read(CERT), read(KEY), read(ORDER)]);
    if (!cert || !key || !order) return null;
    try {
      const was = JSON.parse(order) as { directory?: string; name?: string };
      const leaf = new X509Certificate(cert);
      const notAfter = new Date(leaf.validTo);
      if (was.directory !== this.o.directory || was.name !== this.o.name || !leaf.checkPrivateKey(createPrivateKey(key)) || notAfter <= this.o.clock.now()) return null;
      await checkPrivate(join(this.dir, KEY), 'file');
      return { key, cert, notAfter };
    } catch (err) {
      if (err instanceof TlsSetupError) throw err;
      return null;
    }
  }

  private async accountKey(make: () => Promise<Buffer>): Promise<string> {
    const path = join(this.dir, ACCOUNT_KEY);
    const have = await readFile(path, 'utf8').catch(() => null);
    if (have) {
      await checkPrivate(path, 'file');
      return have;
    }
    const key = (await make()).toString();
    await writePrivate(path, key);
    return key;
  }

  /**
   * Asks for the directory first: acme-client reports a connection that fails as a TypeError of its
   * own, and a directory that is down is what users meet most.
   */
  private async reachable(): Promise<void> {
    const get = await clientFetch(this.o.caFile);
    const answer = await get(this.o.directory, { signal: AbortSignal.timeout(30_000) }).catch((err: Error & { cause?: { code?: string; message?: string } }) => {
      throw new Error(`the directory cannot be reached (${err.cause?.code ?? err.cause?.message ?? err.message})`);
    });
    await answer.arrayBuffer();
    if (!answer.ok) throw new Error(`the directory answered ${answer.status}`);
  }

  /** Orders a certificate: account (made once), HTTP-01 for the name, then key, chain and order kept. */
  private async obtain(): Promise<ServedCertificate> {
    const acme = await loadAcmeClient();
    // acme-client's one axios instance (one ACME source per daemon process). Its own retries stay
    // short (1 s, 2 s): a longer outage is this class's to retry, logged and shown on /healthz.
    const defaults = acme.axios.defaults as { acmeSettings?: Record<string, number> };
    defaults.acmeSettings = { ...defaults.acmeSettings, retryMaxAttempts: 2, retryDefaultDelay: 1 };
    if (this.o.caFile) acme.axios.defaults.httpsAgent = new Agent({ ca: [...rootCertificates, await readCaFile(this.o.caFile)] });
    await this.reachable();
    const account = JSON.parse((await readFile(join(this.dir, ACCOUNT), 'utf8').catch(() => null)) ?? '{}') as { directory?: string; url?: string };
    const accountUrl = account.directory === this.o.directory ? account.url : undefined;
    const client = new acme.Client({ directoryUrl: this.o.directory, accountUrl, accountKey: await this.accountKey(() => acme.crypto.createPrivateEcdsaKey()) });
    const [key, csr] = await acme.crypto.createCsr({ commonName: this.o.name, altNames: [this.o.name] }, await acme.crypto.createPrivateEcdsaKey());
    this.o.log.info({ name: this.o.name, directory: this.o.directory }, 'ordering a certificate through ACME (HTTP-01)');
    const cert = await client.auto({
      csr,
      email: this.o.email,
      // As Caddy and certbot's --agree-tos: choosing --tls acme agrees to the CA's terms.
      termsOfServiceAgreed: true,
      challengePriority: ['http-01'],
      // The CA checks; a check of our own would ask the daemon's public name from inside.
      skipChallengeVerification: true,
      challengeCreateFn: async (_authz, challenge, keyAuthorization) => void this.challenges.set(challenge.token, keyAuthorization),
      challengeRemoveFn: async (_authz, challenge) => void this.challenges.delete(challenge.token),
    });
    if (!accountUrl) await writeFile(join(this.dir, ACCOUNT), JSON.stringify({ directory: this.o.directory, url: client.getAccountUrl() }));
    // The certificate before its key: a start between the two finds them mismatched and orders again.
    const tmp = join(this.dir, `${CERT}.${process.pid}.${Date.now()}.tmp`);
    await writeFile(tmp, cert);
    await rename(tmp, join(this.dir, CERT));
    await writePrivate(join(this.dir, KEY), key.toString());
    await writeFile(join(this.dir, ORDER), JSON.stringify({ directory: this.o.directory, name: this.o.name }));
    const notAfter = new Date(new X509Certificate(cert).validTo);
    this.o.log.info({ name: this.o.name, fingerprint: fingerprintOf(cert), not_after: notAfter }, 'obtained a certificate through ACME');
    return { key: key.toString(), cert, notAfter };
  }
}
