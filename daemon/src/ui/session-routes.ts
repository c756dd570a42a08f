import Router from '@koa/router';
import { BOXYARD } from '../http/route-table';
import { validated } from '../http/validate';
import { requireUser } from '../auth/middleware';
import { requireCsrfHeader, SESSION_MAX_AGE_SECONDS, type SessionCookie } from '../http/session-cookie';
import type { LoginLimiter } from '../http/guards/rate-limit';
import type { TokenService } from '../auth/tokens-service';
import { CreateTokenBody } from '../auth/schemas';
import { userSelf } from '../auth/serialize';
import { browserName } from './browser-name';
import type { SessionAnswer } from '../contract/wire/accounts';

export interface SessionRouteDeps {
  tokens: TokenService;
  loginLimiter: LoginLimiter;
  cookie: SessionCookie;
}

/** The description of a session's token, as the user's token list shows it: "Boxyard web UI — Firefox on Linux". */
export const SESSION_TOKEN_DESCRIPTION = 'Boxyard web UI';

/**
 * The web UI's sign-in (under /api/boxyard): `POST /session` takes what `POST /api/v1/authenticate`
 * takes (password, then the two-factor code on a 406) and sets the session cookie instead of
 * answering the token; `GET /session` says who is signed in; `DELETE /session` revokes the
 * session's token and clears the cookie. The token is an API token of the user marked as a
 * session: it ends with its cookie, and the next sign-in (anyone's) deletes the ended ones.
 */
export function sessionRoutes(deps: SessionRouteDeps): Router {
  const r = new Router();

  r.post(
    BOXYARD.session.path,
    validated({ body: CreateTokenBody }, async (ctx, { body }) => {
      // No cookie authenticates this request, but a forged sign-in would put the victim's browser in
      // the attacker's account (login CSRF): the web UI's header is required here too.
      requireCsrfHeader(ctx);
      const created = await deps.tokens.login(
        {
          login: body.user.login,
          password: body.user.password,
          code: body.two_factor?.code,
          session: {
            description: `${SESSION_TOKEN_DESCRIPTION} — ${browserName(ctx.get('user-agent'))}`,
            seconds: SESSION_MAX_AGE_SECONDS,
          },
        },
        deps.loginLimiter.from(ctx.ip),
      );
      const principal = await deps.tokens.resolve(created.token);
      if (!principal) throw new Error('a token created a moment ago does not resolve');
      // Signing in again in the same browser replaces its session.
      const previous = ctx.state.viaSession ? ctx.state.principal : null;
      if (previous) await deps.tokens.revoke(previous.tokenId);
      deps.cookie.set(ctx, created.token);
      ctx.status = 200;
      ctx.body = { user: userSelf(principal.user) };
    }),
  );

  r.get(BOXYARD.session.path, (ctx) => {
    // Nobody signed in is an answer, not an error: every visitor's browser asks this, and a 401
    // is a console error on each public page. A session or token that no longer works is a 401.
    if (!ctx.state.principal && !ctx.state.badToken) {
      ctx.body = { user: null } satisfies SessionAnswer;
      return;
    }
    ctx.body = { user: userSelf(requireUser(ctx).user) } satisfies SessionAnswer;
  });

  r.delete(BOXYARD.session.path, async (ctx) => {
    const p = ctx.state.principal;
    if (p && ctx.state.viaSession) await deps.tokens.revoke(p.tokenId);
    deps.cookie.clear(ctx);
    ctx.status = 204;
  });

  return r;
}
