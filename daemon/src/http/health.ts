import type { Context, Middleware } from 'koa';
import { VERSION } from '../version';
import { MOUNTS, ROOT } from './route-table';
import { callerIsAdmin } from './caller';

/**
 * `/healthz`, and Terraform's service discovery (the tfe provider and `terraform login` read it,
 * over HTTPS, so it matters behind a TLS proxy): the agent-pools API is HCP Terraform's /api/v2.
 * Answered before maintenance and rate limits, by exact path. `/healthz` touches the database and
 * the blob folder (data/health.ts, at most once a second) and answers 503 with what is wrong.
 */
/**
 * One check of the report: its status, and what is wrong (words that may name files: a key's path, the data folder's).
 */
export interface HealthCheck {
  status: string;
  detail?: string;
}

/** What `/healthz` reports (data/health.ts checks the database, the blob folder and the disk). */
export interface HealthSource {
  report(): Promise<{ status: 'ok' | 'degraded' | 'failing'; checks: Record<string, HealthCheck> }>;
}

/** Told to anyone else when something is wrong: where the details are. */
const DETAILS_HINT =
  "What is wrong is shown to administrators: GET /healthz with an administrator's token, or the overview page of the web UI.";

/**
 * The checks as the caller may see them: an administrator (authentication runs before
 * this) gets each one's detail; anyone else, signed in or not, its status alone, since a detail may
 * name files on the daemon's machine. `/healthz`, `/readyz` and the web UI's overview all ask here.
 */
export function checksFor(
  ctx: Context,
  r: Awaited<ReturnType<HealthSource['report']>>,
): { checks: Record<string, HealthCheck>; details?: string } {
  if (callerIsAdmin(ctx)) return { checks: r.checks };
  const checks = Object.fromEntries(Object.entries(r.checks).map(([name, c]) => [name, { status: c.status }]));
  return r.status === 'ok' ? { checks } : { checks, details: DETAILS_HINT };
}

/** Set when the daemon begins to stop: /readyz turns 503 so a load balancer sends no more requests. */
export interface Lifecycle {
  draining: boolean;
}

/** Whether this daemon runs the background work of all (store/leader.ts): told in /readyz. */
export interface LeaderSource {
  readonly leading: boolean;
}

/**
 * `/readyz` is what a load balancer (or Kubernetes' readinessProbe) asks: 200 while this daemon
 * takes requests, 503 while it drains before stopping or when its database or blob store fails.
 */
export function health(data: HealthSource, life: Lifecycle, leader: LeaderSource): Middleware {
  const api = `${MOUNTS.v2}/`;
  const discovery = { 'tfe.v2': api, 'tfe.v2.1': api, 'tfe.v2.2': api };
  return (ctx, next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    if (ctx.path === ROOT.terraformDiscovery.path) {
      ctx.body = discovery;
      return undefined;
    }
    if (ctx.path === ROOT.readyz.path) {
      return data.report().then((r) => {
        const ready = !life.draining && r.status !== 'failing';
        ctx.status = ready ? 200 : 503;
        ctx.set('Cache-Control', 'no-store');
        ctx.body = {
          status: ready ? 'ready' : life.draining ? 'draining' : 'failing',
          leader: leader.leading,
          ...checksFor(ctx, r),
        };
      });
    }
    if (ctx.path !== ROOT.healthz.path) return next();
    return data.report().then((r) => {
      ctx.status = r.status === 'failing' ? 503 : 200;
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { status: r.status, name: 'boxyard', version: VERSION, ...checksFor(ctx, r) };
    });
  };
}
