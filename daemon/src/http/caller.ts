import type { Context } from 'koa';

/**
 * Whether the caller is an administrator, for what runs in http/ after authentication
 * (auth/middleware.ts sets `ctx.state.principal`; http/ does not import auth/, so it reads the
 * principal as far as it needs): the maintenance guard and `/healthz`'s details.
 */
export const callerIsAdmin = (ctx: Context): boolean =>
  (ctx.state as { principal?: { user: { is_admin: number } } | null }).principal?.user.is_admin === 1;
