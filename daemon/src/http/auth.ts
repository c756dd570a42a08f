import type { Context, Middleware } from 'koa';
import type { Principal } from '../auth/accounts-service';
import type { TokenService } from '../auth/tokens-service';
import { UnauthorizedError } from './errors';

declare module 'koa' {
  interface DefaultState {
    principal: Principal;
    /** A token was presented but is unknown or revoked. */
    badToken: boolean;
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
 * The agent protocol's bearer is an agent token, checked by its own routes: looking it up among
 * user tokens would cost each of 1,000 agents' reports a query that never matches.
 */
const AGENT_PROTOCOL = '/api/agent/';

/** Resolves the caller once per request; routes decide whether they need one. */
export function authenticate(tokens: TokenService): Middleware {
  return (ctx, next) => {
    ctx.state.principal = null;
    ctx.state.badToken = false;
    const secret = ctx.path.startsWith(AGENT_PROTOCOL) ? undefined : presentedToken(ctx);
    if (!secret) return next();
    return tokens.resolve(secret).then((principal) => {
      ctx.state.principal = principal;
      ctx.state.badToken = principal === null;
      return next();
    });
  };
}

/** The calling user, or 401. */
export function requireUser(ctx: Context): NonNullable<Principal> {
  const p = ctx.state.principal as Principal;
  if (p) return p;
  throw new UnauthorizedError(
    ctx.state.badToken
      ? 'The token is invalid or was revoked. Create a new one with POST /api/v1/authenticate.'
      : 'Authentication required: send Authorization: Bearer <token>.',
  );
}
