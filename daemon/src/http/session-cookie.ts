import type { Context } from 'koa';
import type { Config } from '../config';
import { ForbiddenError } from '../lib/errors';
import { CSRF_HEADER, CSRF_VALUE } from '../contract/headers';

/*
 * CSRF_HEADER (contract/headers.ts) is the header the web UI sends on every request
 * (test/http/security-headers.test.ts). A page on another
 * origin cannot send it: a custom header makes a cross-origin request one that needs a CORS
 * preflight, and the daemon grants none. Same-site pages (another port on the same host is
 * "same site", so SameSite=Strict lets their forms carry the cookie) are stopped by it too.
 */

/**
 * How long a browser keeps the cookie, and its token lasts (auth/tokens-service.ts); sign-out (or revoking the token in
 * Settings) ends it sooner.
 */
export const SESSION_MAX_AGE_SECONDS = 30 * 24 * 3600;

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The web UI's sign-in: the session's API token in an httpOnly, SameSite=Strict cookie, so script
 * in the page (injected or not) never holds it, and Secure with the `__Host-` prefix when the public
 * URL is https or the daemon serves HTTPS itself. Requests that the cookie authenticates and that change something must
 * also carry the CSRF header.
 */
export class SessionCookie {
  readonly name: string;
  readonly secure: boolean;

  constructor(config: Pick<Config, 'publicUrl' | 'tls'>) {
    this.secure = config.tls !== 'off' || (config.publicUrl?.startsWith('https:') ?? false);
    this.name = this.secure ? '__Host-boxyard-session' : 'boxyard-session';
  }

  /** The cookie's value, if the request has one (most API clients send no Cookie header at all). */
  read(ctx: Context): string | undefined {
    if (!ctx.headers.cookie) return undefined;
    return ctx.cookies.get(this.name) || undefined;
  }

  set(ctx: Context, token: string): void {
    ctx.append('Set-Cookie', this.serialize(token, SESSION_MAX_AGE_SECONDS));
  }

  clear(ctx: Context): void {
    ctx.append('Set-Cookie', this.serialize('', 0));
  }

  // Written by hand rather than through ctx.cookies.set, which refuses a Secure cookie on a plain
  // HTTP connection: behind a TLS proxy the daemon itself only ever sees plain HTTP.
  private serialize(value: string, maxAge: number): string {
    return `${this.name}=${value}; Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Strict${this.secure ? '; Secure' : ''}`;
  }
}

/** Whether a request may change something on the strength of the session cookie. */
export const csrfSafe = (ctx: Context): boolean => SAFE_METHODS.has(ctx.method) || ctx.get(CSRF_HEADER) === CSRF_VALUE;

/** Refuses a state-changing request that would be authenticated by the cookie alone (a forged one). */
export function requireCsrfHeader(ctx: Context): void {
  if (csrfSafe(ctx)) return;
  throw new ForbiddenError(
    `Refused: this ${ctx.method} carries the Boxyard sign-in cookie but not the ${CSRF_HEADER} header the web UI sends ` +
      '(protection against cross-site request forgery). API clients: authenticate with Authorization: Bearer <token> instead.',
  );
}
