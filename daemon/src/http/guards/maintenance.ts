import type { Context, Middleware, Next } from 'koa';
import { MaintenanceError } from '../../lib/errors';
import { BOX, BOXYARD, MOUNTS, ROOT } from '../route-table';

/** Paths that stay up in maintenance mode, so an administrator can look and switch it off. */
const ALWAYS_UP = new Set([ROOT.healthz.path, MOUNTS.boxyard + BOXYARD.settings.path, MOUNTS.v1 + BOX.authenticate.path, MOUNTS.boxyard + BOXYARD.session.path]);
const isUp = (path: string) => ALWAYS_UP.has(path) || path === '/ui' || path.startsWith('/ui/');

/** The runtime settings (auth/settings.ts), as far as this guard reads them. */
interface MaintenanceSwitch {
  /** Loaded settings, without an await; undefined until first loaded. */
  current(): Readonly<{ maintenance: boolean }> | undefined;
  get(): Promise<Readonly<{ maintenance: boolean }>>;
}

/** Every request passes here: the settings in memory are looked at without an await. */
export function maintenance(settings: MaintenanceSwitch): Middleware {
  const pass = (s: Readonly<{ maintenance: boolean }>, ctx: Context, next: Next) => {
    if (s.maintenance && !isUp(ctx.path)) {
      throw new MaintenanceError('Boxyard is in maintenance mode. Try again later.', { retryAfterSeconds: 60 });
    }
    return next();
  };
  return (ctx, next) => {
    const s = settings.current();
    return s ? pass(s, ctx, next) : settings.get().then((loaded) => pass(loaded, ctx, next));
  };
}
