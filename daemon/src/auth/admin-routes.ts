import Router from '@koa/router';
import type { Context } from 'koa';
import { validated } from '../http/validate';
import { requireUser } from './middleware';
import { ForbiddenError, NotFoundError } from '../lib/errors';
import type { AccountService, Principal } from './accounts-service';
import type { TokenService } from './tokens-service';
import type { TwoFactorService } from './two-factor/two-factor';
import type { SettingsService } from './settings';
import type { PasswordService, Proof } from './passwords';
import type { UserRow } from './repository';
import type { LoginLimiter } from '../http/guards/rate-limit';
import * as S from './schemas';
import { tokenCreated, tokenListed, userSelf } from './serialize';
import { BOXYARD } from '../http/route-table';

export interface AdminRouteDeps {
  accounts: AccountService;
  tokens: TokenService;
  twoFactor: TwoFactorService;
  settings: SettingsService;
  passwords: PasswordService;
  loginLimiter: LoginLimiter;
}

function requireAdmin(ctx: Context): NonNullable<Principal> {
  const p = requireUser(ctx);
  if (!p.user.is_admin) throw new ForbiddenError('Only administrators may do this.');
  return p;
}

/**
 * Boxyard's own account endpoints, for what the Vagrant Cloud API leaves out (under /api/boxyard; organizations:
 * orgs/admin-routes.ts).
 */
export function adminRoutes(deps: AdminRouteDeps): Router {
  const r = new Router();
  const selfOrAdmin = async (ctx: Context, name: string) => {
    const p = requireUser(ctx);
    const user = await deps.accounts.userNamed(name);
    if (user.id !== p.user.id && !p.user.is_admin) throw new NotFoundError(`User "${name}" not found.`);
    return { p, user };
  };
  /** Two-factor changes need the current password (or a code), counted like logins. */
  const reauthenticate = (ctx: Context, user: UserRow, proof: Proof, what: string) =>
    deps.passwords.reauthenticate(user, proof, deps.loginLimiter.from(ctx.ip), what);

  r.get(BOXYARD.user.path, (ctx) => {
    ctx.body = { user: userSelf(requireUser(ctx).user) };
  });
  r.get(BOXYARD.users.path, async (ctx) => {
    requireAdmin(ctx);
    ctx.body = { users: (await deps.accounts.listUsers()).map(userSelf) };
  });
  r.get(
    BOXYARD.userNames.path,
    validated({ query: S.UserNamesQuery }, async (ctx, { query }) => {
      requireUser(ctx);
      ctx.body = { users: (await deps.accounts.usernamesStartingWith(query.q)).map((username) => ({ username })) };
    }),
  );
  r.post(
    BOXYARD.users.path,
    validated({ body: S.CreateUserBody }, async (ctx, { body }) => {
      requireAdmin(ctx);
      ctx.status = 201;
      ctx.body = { user: userSelf(await deps.accounts.createUser(body.user)) };
    }),
  );
  r.get(
    BOXYARD.userNamed.path,
    validated({ params: S.NameParams }, async (ctx, { params }) => {
      ctx.body = { user: userSelf((await selfOrAdmin(ctx, params.name)).user) };
    }),
  );
  r.patch(
    BOXYARD.userNamed.path,
    validated({ params: S.NameParams, body: S.UpdateUserBody }, async (ctx, { params, body }) => {
      const { p, user } = await selfOrAdmin(ctx, params.name);
      ctx.body = {
        user: userSelf(await deps.accounts.updateUser(p, user, body.user, body, deps.loginLimiter.from(ctx.ip))),
      };
    }),
  );
  // An administrator sets another user's password (their tokens are revoked); one's own goes through PATCH.
  r.put(
    BOXYARD.userPassword.path,
    validated({ params: S.NameParams, body: S.ResetPasswordBody }, async (ctx, { params, body }) => {
      const p = requireAdmin(ctx);
      ctx.body = {
        user: userSelf(
          await deps.accounts.resetPassword(await deps.accounts.userNamed(params.name), body.user.password, p),
        ),
      };
    }),
  );
  r.delete(
    BOXYARD.userNamed.path,
    validated({ params: S.NameParams }, async (ctx, { params }) => {
      requireAdmin(ctx);
      await deps.accounts.deleteUser(await deps.accounts.userNamed(params.name));
      ctx.status = 204;
    }),
  );

  r.get(BOXYARD.tokens.path, async (ctx) => {
    const p = requireUser(ctx);
    ctx.body = { tokens: (await deps.tokens.list(p.user)).map((t) => tokenListed(t, p.tokenId)) };
  });
  r.post(
    BOXYARD.tokens.path,
    validated({ body: S.NewTokenBody }, async (ctx, { body }) => {
      ctx.status = 201;
      ctx.body = tokenCreated(await deps.tokens.create(requireUser(ctx).user, body.token.description));
    }),
  );
  r.delete(
    BOXYARD.token.path,
    validated({ params: S.IdParams }, async (ctx, { params }) => {
      if (!(await deps.tokens.revoke(params.id, requireUser(ctx).user.id)))
        throw new NotFoundError(`Token "${params.id}" not found.`);
      ctx.status = 204;
    }),
  );

  /** What two-factor answers: the methods switched on, recovery codes left, and new codes when some were issued. */
  const twoFactorState = async (user: UserRow, codes: string[] | null = null) => ({
    two_factor: {
      delivery_methods: await deps.twoFactor.methods(user),
      recovery_codes_left: await deps.twoFactor.recoveryCodesLeft(user),
      ...(codes ? { recovery_codes: codes } : {}),
    },
  });
  r.get(BOXYARD.twoFactor.path, async (ctx) => {
    ctx.body = await twoFactorState(requireUser(ctx).user);
  });
  r.post(BOXYARD.twoFactorTotp.path, async (ctx) => {
    ctx.status = 201;
    ctx.body = { two_factor: await deps.twoFactor.beginTotp(requireUser(ctx).user) };
  });
  r.post(
    BOXYARD.twoFactorTotpConfirm.path,
    validated({ body: S.TotpConfirmBody }, async (ctx, { body }) => {
      const user = requireUser(ctx).user;
      await reauthenticate(ctx, user, body, 'Switching on an authenticator');
      ctx.body = await twoFactorState(user, await deps.twoFactor.confirmTotp(user, body.two_factor.code));
    }),
  );
  r.post(
    BOXYARD.twoFactorSms.path,
    validated({ body: S.SmsEnableBody }, async (ctx, { body }) => {
      const user = requireUser(ctx).user;
      await reauthenticate(ctx, user, body, 'Switching on SMS codes');
      ctx.body = await twoFactorState(user, await deps.twoFactor.enableSms(user, body.two_factor.phone));
    }),
  );
  r.post(
    BOXYARD.twoFactorRecoveryCodes.path,
    validated({ body: S.ProofBody }, async (ctx, { body }) => {
      const user = requireUser(ctx).user;
      await reauthenticate(ctx, user, body, 'New recovery codes');
      ctx.status = 201;
      ctx.body = await twoFactorState(user, await deps.twoFactor.newRecoveryCodes(user));
    }),
  );
  r.delete(
    BOXYARD.twoFactorMethod.path,
    validated({ params: S.MethodParams, body: S.ProofBody }, async (ctx, { params, body }) => {
      const user = requireUser(ctx).user;
      await reauthenticate(ctx, user, body, 'Switching off two-factor');
      await deps.twoFactor.disable(user, params.method);
      ctx.status = 204;
    }),
  );

  r.get(BOXYARD.settings.path, async (ctx) => {
    requireUser(ctx);
    ctx.body = { settings: await deps.settings.get() };
  });
  r.put(
    BOXYARD.settings.path,
    validated({ body: S.SettingsBody }, async (ctx, { body }) => {
      requireAdmin(ctx);
      ctx.body = { settings: await deps.settings.update(body.settings) };
    }),
  );
  return r;
}
