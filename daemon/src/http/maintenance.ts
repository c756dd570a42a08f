import type { Middleware } from 'koa';
import type { SettingsService } from '../auth/settings';
import { MaintenanceError } from './errors';

/** Paths that stay up in maintenance mode, so an administrator can look and switch it off. */
const ALWAYS_UP = [/^\/healthz$/, /^\/api\/boxyard\/settings$/, /^\/api\/v1\/authenticate$/, /^\/api\/boxyard\/session$/, /^\/ui(\/|$)/];

export function maintenance(settings: SettingsService): Middleware {
  return async (ctx, next) => {
    if ((await settings.get()).maintenance && !ALWAYS_UP.some((r) => r.test(ctx.path))) {
      throw new MaintenanceError('Boxyard is in maintenance mode. Try again later.', { headers: { 'Retry-After': '60' } });
    }
    return next();
  };
}
