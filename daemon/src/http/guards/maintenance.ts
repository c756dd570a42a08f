import type { Context, Middleware, Next } from 'koa';
import { MaintenanceError } from '../../lib/errors';
import { BOX, BOXYARD, MOUNTS, ROOT, isUiPath } from '../route-table';
import { callerIsAdmin } from '../caller';

/**
 * What stays up in maintenance mode for everyone: health, the web UI, signing in and out, who is
 * signed in (`/session`, `/user`: the UI learns there whether the user is an administrator, who
 * alone sees the switch) and the settings (the UI's maintenance banner reads them; only
 * administrators may change them: auth/admin-routes.ts).
 */
const ALWAYS_UP = new Set([
  ROOT.healthz.path,
  MOUNTS.v1 + BOX.authenticate.path,
  ...[BOXYARD.session, BOXYARD.user, BOXYARD.settings].map((r) => MOUNTS.boxyard + r.path),
]);
// The UI without `/`: the root, which only sends a browser on to /ui/, has always answered the
// maintenance error instead, as every path outside the UI and ALWAYS_UP does.
const isUp = (path: string) => ALWAYS_UP.has(path) || isUiPath(path, false);

/**
 * Administrators keep the web UI's own API too (users, tokens, the overview, mirrors), so they can
 * look at what needs doing and switch maintenance off; the APIs clients use (vagrant, go-tfe,
 * agents) stay closed to them as well.
 */
const ADMIN_UP = `${MOUNTS.boxyard}/`;

/** The runtime settings (auth/settings.ts), as far as this guard reads them. */
interface MaintenanceSwitch {
  /** Loaded settings, without an await; undefined until first loaded. */
  current(): Readonly<{ maintenance: boolean }> | undefined;
  get(): Promise<Readonly<{ maintenance: boolean }>>;
}

/** Every request passes here: the settings in memory are looked at without an await. */
export function maintenance(settings: MaintenanceSwitch): Middleware {
  const pass = (s: Readonly<{ maintenance: boolean }>, ctx: Context, next: Next) => {
    if (s.maintenance && !isUp(ctx.path) && !(ctx.path.startsWith(ADMIN_UP) && callerIsAdmin(ctx))) {
      throw new MaintenanceError('Boxyard is in maintenance mode. Try again later.', { retryAfterSeconds: 60 });
    }
    return next();
  };
  return (ctx, next) => {
    const s = settings.current();
    return s ? pass(s, ctx, next) : settings.get().then((loaded) => pass(loaded, ctx, next));
  };
}
