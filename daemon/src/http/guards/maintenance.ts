import type { Context, Middleware, Next } from 'koa';
import type { RuntimeSettings, SettingsService } from '../../auth/settings';
import { MaintenanceError } from '../../lib/errors';

/** Paths that stay up in maintenance mode, so an administrator can look and switch it off. */
const ALWAYS_UP = [/^\/healthz$/, /^\/api\/boxyard\/settings$/, /^\/api\/v1\/authenticate$/, /^\/api\/boxyard\/session$/, /^\/ui(\/|$)/];

/** Every request passes here: the settings in memory are looked at without an await. */
export function maintenance(settings: SettingsService): Middleware {
  const pass = (s: Readonly<RuntimeSettings>, ctx: Context, next: Next) => {
    if (s.maintenance && !ALWAYS_UP.some((r) => r.test(ctx.path))) {
      throw new MaintenanceError('Boxyard is in maintenance mode. Try again later.', { headers: { 'Retry-After': '60' } });
    }
    return next();
  };
  return (ctx, next) => {
    const s = settings.current();
    return s ? pass(s, ctx, next) : settings.get().then((loaded) => pass(loaded, ctx, next));
  };
}
