import type { Middleware } from 'koa';
import type { Pool } from 'pg';
import {
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import { AppError, RateLimitedError } from '../../lib/errors';
import { sha256Hex } from '../../lib/crypto';

/** Makes a counter of `points` per `duration` seconds; keys of different counters never meet. */
export type LimiterFactory = (opts: { keyPrefix: string; points: number; duration: number }) => RateLimiterAbstract;

/** One daemon (SQLite): counted in its memory. */
export const memoryLimiters: LimiterFactory = (opts) => new RateLimiterMemory(opts);

/**
 * Several daemons on one PostgreSQL database: counted in its `rate_limits` table (migration 016),
 * so a limit holds whichever daemon the load balancer sends a request to.
 */
export const postgresLimiters =
  (pool: Pool): LimiterFactory =>
  (opts) =>
    new RateLimiterPostgres({
      ...opts,
      storeClient: pool,
      storeType: 'pool',
      tableName: 'rate_limits',
      tableCreated: true,
    });

const limited = (res: RateLimiterRes, what: string) =>
  new RateLimitedError(`Too many ${what}. Try again in ${Math.ceil(res.msBeforeNext / 1000)} seconds.`, {
    retryAfterSeconds: Math.ceil(res.msBeforeNext / 1000),
  });

/** Per-token (or per-address when anonymous) request rate (`perMinute` > 0; 0 is not mounted). */
export function requestRateLimit(perMinute: number, limiters: LimiterFactory): Middleware {
  const limiter = limiters({ keyPrefix: 'requests', points: perMinute, duration: 60 });
  return async (ctx, next) => {
    const key = ctx.state.principal ? `t:${ctx.state.principal.tokenId}` : `ip:${ctx.ip}`;
    try {
      await limiter.consume(key);
    } catch (res) {
      if (res instanceof RateLimiterRes) throw limited(res, 'requests');
      throw res;
    }
    return next();
  };
}

/** What a password or code check is counted against: one address, and the account tried there. */
export interface AttemptGuard {
  /**
   * Counts the attempt before `fn` checks anything (a burst cannot get more checks than the
   * limits allow), then gives the count back unless `fn` failed on the credentials.
   */
  attempt<T>(account: string, fn: () => Promise<T>): Promise<T>;
}

/** Errors that mean "wrong password or code": the only outcomes that stay counted. */
const CREDENTIAL_FAILURES = new Set(['unauthorized', 'reauthentication_required']);

/** An account as typed (up to 256 characters) in a short key: PostgreSQL's key column holds 255. */
const digest = (account: string) => sha256Hex(account).slice(0, 32);

const ADDRESS_FACTOR = 10;
const ACCOUNT_FACTOR = 3;
const ACCOUNT_WINDOW_S = 60;

/**
 * Failed logins and re-authentications, counted before the password hash:
 * - per address and account: `attempts` in 15 minutes (guessing one account from one place);
 * - per address: 10 × `attempts` in 15 minutes (trying many accounts from one place);
 * - per account from everywhere: 3 × `attempts` a minute, a backoff that stays short (a minute at
 *   most). One address never reaches it, so nobody locks another person out from one machine;
 *   the owner signs in from their own address while one address guesses.
 */
export class LoginLimiter {
  private readonly limits: Array<{
    limiter: RateLimiterAbstract;
    key: (address: string, account: string) => string;
    what: string;
  }>;

  constructor(attempts: number, limiters: LimiterFactory = memoryLimiters) {
    const window = 15 * 60;
    this.limits = [
      {
        limiter: limiters({ keyPrefix: 'login-account-address', points: attempts, duration: window }),
        key: (ip, acc) => `${ip} ${digest(acc)}`,
        what: 'failed logins for this account from this address',
      },
      {
        limiter: limiters({ keyPrefix: 'login-address', points: attempts * ADDRESS_FACTOR, duration: window }),
        key: (ip) => ip,
        what: 'failed logins from this address',
      },
      {
        limiter: limiters({
          keyPrefix: 'login-account',
          points: attempts * ACCOUNT_FACTOR,
          duration: ACCOUNT_WINDOW_S,
        }),
        key: (_, acc) => digest(acc),
        what: 'failed logins for this account',
      },
    ];
  }

  /** The guard for requests from one address (`ctx.ip`). */
  from(address: string): AttemptGuard {
    return { attempt: (account, fn) => this.attempt(address, account, fn) };
  }

  private async attempt<T>(address: string, account: string, fn: () => Promise<T>): Promise<T> {
    const keys = this.limits.map((l) => l.key(address, account));
    const giveBack = () => Promise.all(this.limits.map((l, i) => l.limiter.reward(keys[i])));
    // Each consume counts synchronously: parallel attempts are counted one by one, before any hash.
    const results = await Promise.allSettled(this.limits.map((l, i) => l.limiter.consume(keys[i])));
    const refused = results.findIndex((r) => r.status === 'rejected');
    if (refused >= 0) {
      await giveBack();
      const reason = (results[refused] as PromiseRejectedResult).reason;
      if (reason instanceof RateLimiterRes) throw limited(reason, this.limits[refused].what);
      throw reason;
    }
    try {
      const out = await fn();
      await giveBack();
      return out;
    } catch (err) {
      if (!(err instanceof AppError && CREDENTIAL_FAILURES.has(err.code))) await giveBack();
      throw err;
    }
  }
}
