import type { Context, Middleware } from 'koa';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { RateLimitedError, UnauthorizedError } from './errors';

const limited = (res: RateLimiterRes, what: string) =>
  new RateLimitedError(`Too many ${what}. Try again in ${Math.ceil(res.msBeforeNext / 1000)} seconds.`, {
    headers: { 'Retry-After': String(Math.ceil(res.msBeforeNext / 1000)) },
  });

/** Per-token (or per-address when anonymous) request rate (`perMinute` > 0; 0 is not mounted). */
export function requestRateLimit(perMinute: number): Middleware {
  const limiter = new RateLimiterMemory({ points: perMinute, duration: 60 });
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

/** Failed logins per login name and per address; a success does not reset the address count. */
export class LoginLimiter {
  private readonly limiter: RateLimiterMemory;
  constructor(attempts: number) {
    this.limiter = new RateLimiterMemory({ points: attempts, duration: 15 * 60 });
  }
  private keys = (ctx: Context, login: string) => [`l:${login.toLowerCase()}`, `ip:${ctx.ip}`];

  async check(ctx: Context, login: string): Promise<void> {
    for (const key of this.keys(ctx, login)) {
      const res = await this.limiter.get(key);
      if (res && res.remainingPoints <= 0) throw limited(res, 'failed logins');
    }
  }

  async failed(ctx: Context, login: string): Promise<void> {
    for (const key of this.keys(ctx, login)) await this.limiter.penalty(key, 1);
  }

  /** Runs a login attempt, counting it when it fails with a wrong password or code. */
  async attempt<T>(ctx: Context, login: string, fn: () => Promise<T>): Promise<T> {
    await this.check(ctx, login);
    try {
      return await fn();
    } catch (err) {
      if (err instanceof UnauthorizedError) await this.failed(ctx, login);
      throw err;
    }
  }
}
