import type { Context, Middleware, Next } from 'koa';
import type { Principal } from './accounts-service';
import type { TokenService } from './tokens-service';
import { ForbiddenError, UnauthorizedError } from '../lib/errors';
import { requireCsrfHeader, type SessionCookie } from '../http/session-cookie';
import { MOUNTS } from '../http/route-table';

declare module 'koa' {
  interface DefaultState {
    principal: Principal;
    /** A token was presented but is unknown or revoked. */
    badToken: boolean;
    /** The credential was the web UI's session cookie, not a token header. */
    viaSession: boolean;
    requestId: string;
  }
}

/**
 * The presented secret, from any of the transports clients use: `Authorization: Bearer` (current
 * clients), `X-Atlas-Token` (vagrant's legacy header), `X-Service-Token` (the spec's legacy
 * header) and the deprecated `?access_token=` (vagrant with VAGRANT_SERVER_ACCESS_TOKEN_BY_URL=1).
 */
export function presentedToken(ctx: Context): string | undefined {
  const auth = ctx.get('authorization');
  const m = /^Bearer\s+(.+)$/i.exec(auth);
  if (m) return m[1].trim();
  const legacy = ctx.get('x-atlas-token') || ctx.get('x-service-token');
  if (legacy) return legacy.trim();
  const q = ctx.query.access_token;
  if (typeof q === 'string' && q) return q;
  return undefined;
}

/**
 * Whether a request carries a credential in any form the daemon reads, valid or not: a token by
 * any transport `presentedToken` takes, any `Authorization` header (Basic included), an
 * `access_token` parameter in any shape, or the UI's session cookie. Such a request sent over
 * plain HTTP is never redirected (http/guards/https.ts).
 */
export function carriesCredential(ctx: Context, session: SessionCookie): boolean {
  return (
    presentedToken(ctx) !== undefined ||
    ctx.get('authorization') !== '' ||
    ctx.query.access_token !== undefined ||
    session.read(ctx) !== undefined
  );
}

/**
 * The agent protocol's bearer is an agent token, checked by its own routes: looking it up among
 * user tokens would cost each of 1,000 agents' reports a query that never matches.
 */
const AGENT_PROTOCOL = `${MOUNTS.agent}/`;

/**
 * Resolves the caller once per request; routes decide whether they need one. A token header wins;
 * else the web UI's session cookie, which a state-changing request may only use with the CSRF header.
 */
export function authenticate(tokens: TokenService, session: SessionCookie): Middleware {
  const resolve = (ctx: Context, next: Next, secret: string, viaSession: boolean) =>
    tokens.resolve(secret).then((principal) => {
      ctx.state.principal = principal;
      ctx.state.badToken = principal === null;
      ctx.state.viaSession = viaSession;
      return next();
    });
  return (ctx, next) => {
    ctx.state.principal = null;
    ctx.state.badToken = false;
    ctx.state.viaSession = false;
    if (ctx.path.startsWith(AGENT_PROTOCOL)) return next();
    const secret = presentedToken(ctx);
    if (secret) return resolve(ctx, next, secret, false);
    const cookie = session.read(ctx);
    if (!cookie) return next();
    requireCsrfHeader(ctx);
    return resolve(ctx, next, cookie, true);
  };
}

/**
 * The calling user: 401 without one, 403 for a service principal's token, which is no user (its routes ask
 * `requirePublisher`).
 */
export function requireUser(ctx: Context): NonNullable<Principal> {
  const p = requirePublisher(ctx);
  if (p.scope) {
    throw new ForbiddenError(
      `This token belongs to service principal "${p.scope.clientId}": it may only publish boxes of its organization. Use a user's token for anything else.`,
    );
  }
  return p;
}

/**
 * The caller of a route that publishes boxes (the Vagrant Cloud API's changes, the HCP registry API): a user, or a
 * service principal, whose rights the registry's rules bound to its organization (orgs/service.ts actsFor); or 401.
 */
export function requirePublisher(ctx: Context): NonNullable<Principal> {
  const p = ctx.state.principal as Principal;
  if (p) return p;
  throw new UnauthorizedError(
    ctx.state.badToken
      ? ctx.state.viaSession
        ? 'Your session has ended (signed out, or its token was revoked): sign in again.'
        : 'The token is invalid or was revoked. Create a new one with POST /api/v1/authenticate.'
      : 'Authentication required: send Authorization: Bearer <token>.',
  );
}
