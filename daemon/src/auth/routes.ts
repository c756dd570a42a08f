import Router from '@koa/router';
import { BOX } from '../http/route-table';
import { validated } from '../http/validate';
import { requirePublisher, requireUser } from './middleware';
import type { LoginLimiter } from '../http/guards/rate-limit';
import type { TokenService } from './tokens-service';
import { CreateTokenBody, RequestCodeBody } from './schemas';
import { tokenCreated } from './serialize';

export interface AuthRouteDeps {
  tokens: TokenService;
  loginLimiter: LoginLimiter;
}

/** Token and two-factor endpoints of the Vagrant Cloud API (mounted under /api/v1 and /api/v2). */
export function authRoutes(deps: AuthRouteDeps): Router {
  const r = new Router();

  r.post(
    BOX.authenticate.path,
    validated({ body: CreateTokenBody }, async (ctx, { body }) => {
      const token = await deps.tokens.login(
        {
          login: body.user.login,
          password: body.user.password,
          code: body.two_factor?.code,
          description: body.token?.description,
        },
        deps.loginLimiter.from(ctx.ip),
      );
      ctx.status = 200;
      ctx.body = tokenCreated(token);
    }),
  );

  // vagrant_cloud checks a token here, a service principal's too (HCP's sign-in): its client id is its username.
  r.get(BOX.authenticate.path, (ctx) => {
    const p = requirePublisher(ctx);
    ctx.body = { user: { username: p.user.username } };
  });

  r.delete(BOX.authenticate.path, async (ctx) => {
    const p = requireUser(ctx);
    await deps.tokens.revoke(p.tokenId);
    ctx.status = 204;
  });

  r.post(
    BOX.twoFactorCode.path,
    validated({ body: RequestCodeBody }, async (ctx, { body }) => {
      const destination = await deps.tokens.requestSmsCode(body.user, deps.loginLimiter.from(ctx.ip));
      ctx.body = { two_factor: { obfuscated_destination: destination } };
    }),
  );

  return r;
}
