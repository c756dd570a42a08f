import { unwatchFile, watchFile } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import { fingerprintOf } from './fingerprint';
import type { Issuer, ServedCertificate } from './issuer';
import { checkPair, checkPrivate, TlsSetupError } from './private-files';

/**
 * Checks a key and certificate chain as a start-up would: readable, the key closed to other users
 * (its group may read it), and the pair passing `checkPair` at `now`.
 */
export async function loadCertificateFiles(
  certFile: string,
  keyFile: string,
  now = new Date(),
): Promise<ServedCertificate> {
  const text = async (f: string, what: string) =>
    readFile(f, 'utf8').catch((err: NodeJS.ErrnoException) => {
      throw new TlsSetupError(`Cannot read the TLS ${what} ${f}: ${err.code ?? err.message}.`);
    });
  const [cert, key] = await Promise.all([text(certFile, 'certificate'), text(keyFile, 'key')]);
  await checkPrivate(keyFile, 'file', 'group');
  const { notBefore, notAfter } = checkPair(cert, key, now, { names: { cert: certFile, key: keyFile } });
  return { key, cert, notBefore, notAfter };
}

const WATCH_MS = 5000;

/**
 * `--tls-cert FILE --tls-key FILE`: the user's own, read again at every check (SIGHUP, either
 * file changing, the hourly one), never renewed here. A bad new pair, or a key made readable by
 * others, fails the check: the pair read before stays served.
 */
export class FileIssuer implements Issuer {
  readonly mode = 'files';
  readonly publicTrust = true;
  readonly ca = null;
  readonly failing = 'the certificate files could not be reloaded';
  private last?: string;

  constructor(private readonly opts: { cert: string; key: string; log: Logger }) {}

  async open(): Promise<void> {}

  async held(now: Date): Promise<ServedCertificate> {
    const pair = await loadCertificateFiles(this.opts.cert, this.opts.key, now);
    if (this.last !== undefined && this.last !== pair.cert + pair.key) {
      this.opts.log.info(
        { cert: this.opts.cert, fingerprint: fingerprintOf(pair.cert), not_after: pair.notAfter },
        'reloaded the TLS certificate',
      );
    }
    this.last = pair.cert + pair.key;
    return pair;
  }

  watch(changed: () => void): () => void {
    const files = [this.opts.cert, this.opts.key];
    for (const f of files) watchFile(f, { interval: WATCH_MS, persistent: false }, changed);
    return () => {
      for (const f of files) unwatchFile(f, changed);
    };
  }

  describe() {
    return { message: `certificate ${this.opts.cert}` };
  }
}
