import { readFile } from 'node:fs/promises';
import { Agent } from 'node:https';
import { basename, dirname, join } from 'node:path';
import type { Logger } from 'pino';
import { ACME_CERT_FILE } from '../contract/lan';
import { loadAcmeClient } from '../lib/lazy-modules';
import { SHARED_FILE, writeFileAtomically } from '../lib/private-files';
import { caBundle, clientFetch, readCaFile } from './client-fetch';
import { fingerprintOf } from './fingerprint';
import type { Issuer, ServedCertificate } from './issuer';
import { checkPair, checkPrivate, privateFolder, TlsSetupError } from './private-files';

type Acme = Awaited<ReturnType<typeof loadAcmeClient>>;

const ACCOUNT_KEY = 'account-key.pem';
/** The account's URL at its directory: later orders use it instead of registering again. */
const ACCOUNT = 'account.json';
const KEY = 'key.pem';
const CERT = basename(ACME_CERT_FILE);
/** Which directory and name the stored certificate is for: another of either asks for a new one. */
const ORDER = 'order.json';

export interface AcmeOptions {
  dataDir: string;
  /** The name in the public URL: the certificate is for it. */
  name: string;
  directory: string;
  email?: string;
  /** The directory's own CA (a private ACME server: step-ca, pebble), trusted besides the system's. */
  caFile?: string;
  log: Logger;
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * `--tls acme`: a certificate for the public URL's name from an ACME CA (Let's Encrypt by
 * default), through acme-client, with the HTTP-01 challenge answered on `--http-port` (80 unless
 * told: app.ts serves `challenge()` there). Kept in DATA/tls/acme/ (0700, keys 0600) with the
 * account key, so a restart serves it again; renewed, and retried when that fails, by
 * tls/maintenance.ts. Without a certificate at start, failing to get one stops the start: never
 * plain HTTP instead.
 */
export class AcmeIssuer implements Issuer {
  readonly mode = 'acme';
  readonly publicTrust = true;
  readonly ca = null;
  readonly failing: string;
  private readonly dir: string;
  private readonly challenges = new Map<string, string>();

  constructor(private readonly opts: AcmeOptions) {
    this.dir = join(opts.dataDir, dirname(ACME_CERT_FILE));
    this.failing = `renewing the certificate through ${opts.directory} failed`;
  }

  /** The key authorization for an HTTP-01 token being validated now. */
  challenge(token: string): string | undefined {
    return this.challenges.get(token);
  }

  async open(): Promise<void> {
    for (const d of [join(this.opts.dataDir, 'tls'), this.dir]) await privateFolder(d);
  }

  startFailure(err: unknown): Error {
    const { name, directory } = this.opts;
    return new TlsSetupError(
      `Could not get a certificate for ${name} from the ACME directory ${directory}: ${messageOf(err)}. ` +
        `Check that the directory is reachable and that ${name} resolves to this machine with its --http-port (80 unless set) reachable from the internet.`,
    );
  }

  describe() {
    return { message: `certificate for ${this.opts.name} from ${this.opts.directory}` };
  }

  /** The stored certificate when it is for this directory and name, and passes `checkPair` at `now`. */
  async held(now: Date): Promise<ServedCertificate | null> {
    const read = (f: string) => readFile(join(this.dir, f), 'utf8').catch(() => null);
    const [cert, key, order] = await Promise.all([read(CERT), read(KEY), read(ORDER)]);
    if (!cert || !key || !order) return null;
    let pair: ReturnType<typeof checkPair>;
    try {
      const was = JSON.parse(order) as { directory?: string; name?: string };
      if (was.directory !== this.opts.directory || was.name !== this.opts.name) return null;
      pair = checkPair(cert, key, now, { early: 'allowed' });
    } catch {
      return null;
    }
    await checkPrivate(join(this.dir, KEY), 'file');
    return { key, cert, notBefore: pair.notBefore, notAfter: pair.notAfter };
  }

  private async accountKey(make: () => Promise<Buffer>): Promise<string> {
    const path = join(this.dir, ACCOUNT_KEY);
    const have = await readFile(path, 'utf8').catch(() => null);
    if (have) {
      await checkPrivate(path, 'file');
      return have;
    }
    const key = (await make()).toString();
    await writeFileAtomically(path, key);
    return key;
  }

  /**
   * Asks for the directory first: acme-client reports a connection that fails as a TypeError of its
   * own, and a directory that is down is what users meet most.
   */
  private async reachable(): Promise<void> {
    const get = await clientFetch(this.opts.caFile);
    const answer = await get(this.opts.directory, { signal: AbortSignal.timeout(30_000) }).catch(
      (err: Error & { cause?: { code?: string; message?: string } }) => {
        throw new Error(`the directory cannot be reached (${err.cause?.code ?? err.cause?.message ?? err.message})`);
      },
    );
    await answer.arrayBuffer();
    if (!answer.ok) throw new Error(`the directory answered ${answer.status}`);
  }

  /**
   * acme-client has one axios instance for the whole process: the directory's own CA (`caFile`) is
   * handed to the requests for the directory's origin only, while this order runs, never set as
   * that instance's default. Its retries of a request (5 at most, after Retry-After) stay its own.
   */
  private async withDirectoryCa<T>(acme: Acme, order: () => Promise<T>): Promise<T> {
    if (!this.opts.caFile) return order();
    const agent = new Agent({ ca: caBundle(await readCaFile(this.opts.caFile)) });
    const origin = new URL(this.opts.directory).origin;
    const id = acme.axios.interceptors.request.use((config) => {
      if (config.url && URL.canParse(config.url) && new URL(config.url).origin === origin) config.httpsAgent = agent;
      return config;
    });
    try {
      return await order();
    } finally {
      acme.axios.interceptors.request.eject(id);
      agent.destroy();
    }
  }

  /** Orders a certificate: account (made once), HTTP-01 for the name, then key, chain and order kept. */
  async issue(): Promise<ServedCertificate> {
    const acme = await loadAcmeClient();
    await this.reachable();
    return this.withDirectoryCa(acme, () => this.order(acme));
  }

  private async order(acme: Acme): Promise<ServedCertificate> {
    const account = JSON.parse((await readFile(join(this.dir, ACCOUNT), 'utf8').catch(() => null)) ?? '{}') as {
      directory?: string;
      url?: string;
    };
    const accountUrl = account.directory === this.opts.directory ? account.url : undefined;
    const client = new acme.Client({
      directoryUrl: this.opts.directory,
      accountUrl,
      accountKey: await this.accountKey(() => acme.crypto.createPrivateEcdsaKey()),
    });
    const [key, csr] = await acme.crypto.createCsr(
      { commonName: this.opts.name, altNames: [this.opts.name] },
      await acme.crypto.createPrivateEcdsaKey(),
    );
    this.opts.log.info(
      { name: this.opts.name, directory: this.opts.directory },
      'ordering a certificate through ACME (HTTP-01)',
    );
    const cert = await client.auto({
      csr,
      email: this.opts.email,
      // As Caddy and certbot's --agree-tos: choosing --tls acme agrees to the CA's terms.
      termsOfServiceAgreed: true,
      challengePriority: ['http-01'],
      // The CA checks; a check of our own would ask the daemon's public name from inside.
      skipChallengeVerification: true,
      challengeCreateFn: async (_authz, challenge, keyAuthorization) =>
        void this.challenges.set(challenge.token, keyAuthorization),
      challengeRemoveFn: async (_authz, challenge) => void this.challenges.delete(challenge.token),
    });
    const shared = { mode: SHARED_FILE };
    if (!accountUrl) {
      const record = JSON.stringify({ directory: this.opts.directory, url: client.getAccountUrl() });
      await writeFileAtomically(join(this.dir, ACCOUNT), record, shared);
    }
    // Checked as a held one is, before it is kept or served: a chain that is not for its key is refused now.
    const { notBefore, notAfter } = checkPair(cert, key.toString(), new Date(), {
      names: { cert: `the chain ${this.opts.directory} issued`, key: `the key made for ${this.opts.name}` },
      early: 'allowed',
    });
    // The certificate before its key: a start between the two finds them mismatched and orders again.
    await writeFileAtomically(join(this.dir, CERT), cert, shared);
    await writeFileAtomically(join(this.dir, KEY), key.toString());
    const ordered = JSON.stringify({ directory: this.opts.directory, name: this.opts.name });
    await writeFileAtomically(join(this.dir, ORDER), ordered, shared);
    this.opts.log.info(
      { name: this.opts.name, fingerprint: fingerprintOf(cert), not_after: notAfter },
      'obtained a certificate through ACME',
    );
    return { key: key.toString(), cert, notBefore, notAfter };
  }
}
