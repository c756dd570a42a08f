import type { Logger } from 'pino';
import { retrying, type Backoff } from '../lib/backoff';
import type { Clock } from '../lib/clock';
import type { CertificateSource, Issuer, ServedCertificate, TlsStatus } from './issuer';

/** How often the issuer is asked whether what it holds is still right (names, files, dates). */
const CHECK_MS = 3_600_000;
/** After a failed check, the next comes 1 minute later, doubling up to CHECK_MS. */
const RETRY: Backoff = { firstMs: 60_000, maxMs: CHECK_MS };

/**
 * The one renewal policy: a certificate is renewed once less than a third of its life is left
 * (30 days of a 90-day certificate, ACME's or the local CA's), as certmagic and certbot do.
 */
export function renewalDue(c: Pick<ServedCertificate, 'notBefore' | 'notAfter'>, now: Date): boolean {
  const to = c.notAfter.getTime();
  return to - now.getTime() < (to - c.notBefore.getTime()) / 3;
}

/**
 * The maintenance loop, one per daemon, over whichever issuer the config chose: at start the
 * certificate the issuer holds (or a new one: without any, the start fails), then one timer that
 * asks the issuer every hour, and on SIGHUP or a change it reports, for what it holds now; one that
 * is due (`renewalDue`) or no longer fits is issued again. A failed check keeps the certificate
 * served, makes the status (and /healthz) say so, and is tried again (lib/backoff.ts): 1 minute,
 * doubling to an hour. A SIGHUP meanwhile tries at once and counts as one more failure; one during
 * a check is followed by another.
 */
export class ManagedCertificate implements CertificateSource {
  readonly challenge?: (token: string) => string | undefined;
  private served?: ServedCertificate;
  private onChange: (c: ServedCertificate) => void = () => {};
  private problem: string | null = null;
  /** Failed checks since the last good one. */
  private failures = 0;
  private timer?: NodeJS.Timeout;
  /** The wait between failed checks, aborted by a SIGHUP or stop. */
  private backoff?: AbortController;
  /** A check running now. */
  private attempt?: Promise<void>;
  /** The check asked for while one runs: it follows that one (a file may have changed after it read it). */
  private again?: Promise<void>;
  private unwatch?: () => void;
  private stopped = false;

  constructor(
    private readonly issuer: Issuer,
    private readonly deps: { clock: Clock; log: Logger },
  ) {
    if (issuer.challenge) this.challenge = issuer.challenge.bind(issuer);
  }

  get mode(): TlsStatus['mode'] {
    return this.issuer.mode;
  }
  get publicTrust(): boolean {
    return this.issuer.publicTrust;
  }
  get ca() {
    return this.issuer.ca;
  }

  async start(onChange: (c: ServedCertificate) => void): Promise<ServedCertificate> {
    await this.issuer.open();
    const held = await this.issuer.held(this.deps.clock.now());
    const first =
      held ??
      (await this.issueNew().catch((err: unknown) => {
        throw this.issuer.startFailure?.(err) ?? err;
      }));
    this.served = first;
    this.onChange = onChange;
    this.unwatch = this.issuer.watch?.(() => void this.reload());
    // One held but due is served while it is renewed.
    this.schedule(held && this.renews(held) ? 0 : CHECK_MS);
    return first;
  }

  reload(): Promise<void> {
    if (!this.attempt) return this.checkWithRetries();
    this.again ??= this.attempt
      .catch(() => undefined)
      .then(() => {
        this.again = undefined;
        return this.reload();
      });
    return this.again;
  }

  status(): TlsStatus {
    const { message, local_ca } = this.issuer.describe();
    return {
      ok: this.problem === null,
      mode: this.mode,
      not_after: this.served?.notAfter.toISOString() ?? null,
      message: this.problem ?? message,
      ...(local_ca ? { local_ca } : {}),
    };
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.backoff?.abort();
    this.unwatch?.();
  }

  /** A new certificate. An issuer that cannot issue (the user's files) holds one or throws why it does not. */
  private issueNew(): Promise<ServedCertificate> {
    if (!this.issuer.issue)
      throw new Error(`the ${this.issuer.mode} TLS issuer holds no certificate and cannot issue one`);
    return this.issuer.issue();
  }

  private renews(c: ServedCertificate): boolean {
    return this.issuer.issue !== undefined && renewalDue(c, this.deps.clock.now());
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.reload(), ms);
    this.timer.unref();
  }

  /** One check: what the issuer holds, or a new one when that is due or there is none. */
  private async check(): Promise<void> {
    const held = await this.issuer.held(this.deps.clock.now());
    const next = held && !this.renews(held) ? held : await this.issueNew();
    if (this.stopped) return;
    const changed = next.cert !== this.served?.cert || next.key !== this.served.key;
    this.served = next;
    if (changed) this.onChange(next);
  }

  /** Checks now and, while that fails, again with backoff; resolves once the first check has ended. */
  private checkWithRetries(): Promise<void> {
    clearTimeout(this.timer);
    this.backoff?.abort();
    const backoff = new AbortController();
    this.backoff = backoff;
    return new Promise<void>((firstEnded) => {
      retrying(
        () => {
          this.attempt = this.check().finally(() => {
            this.attempt = undefined;
          });
          return this.attempt;
        },
        {
          backoff: RETRY,
          // Goes on where the failures so far left off: a SIGHUP during a wait does not reset it.
          failedBefore: this.failures,
          unref: true,
          signal: backoff.signal,
          onRetry: (err, wait, failures) => {
            this.failures = failures;
            const why = err instanceof Error ? err.message : String(err);
            this.problem = `${this.issuer.failing}: ${why}; retrying in ${Math.round(wait / 1000)} s (still serving the current one until ${this.served?.notAfter.toISOString()})`;
            this.deps.log.error(
              { err, retry_in_s: wait / 1000 },
              `${this.issuer.failing}; still serving the current certificate`,
            );
            firstEnded();
          },
        },
      ).then(
        () => {
          this.failures = 0;
          this.problem = null;
          this.schedule(CHECK_MS);
          firstEnded();
        },
        () => firstEnded(),
      );
    });
  }
}
