import { networkInterfaces } from 'node:os';
import Router from '@koa/router';
import type { Context } from 'koa';
import type { Config } from '../config';
import { VERSION } from '../version';
import { BOXYARD } from '../http/route-table';
import { requireUser } from '../auth/middleware';
import type { DiskSpace } from '../blobs/disk-space';
import { lanUrls } from '../contract/lan';
import { isLoopback, urlHost } from '../lib/host-names';
import { listensOnAll } from '../http/own-names';
import type { OverviewJson } from '../contract/wire/overview';
import type { HealthReport } from './health';
import { checksFor } from '../http/health';
import type { CertificateSource } from '../tls/issuer';
import { ACTIVITY_LIMIT, type OverviewQueries, type Viewer } from './overview';

export interface OverviewRouteDeps {
  overview: OverviewQueries;
  health: { report(): Promise<HealthReport> };
  space: DiskSpace;
  config: Pick<Config, 'host' | 'publicUrl'>;
  /** HTTPS's certificate source (null: plain HTTP). */
  tls: Pick<CertificateSource, 'status' | 'ca'> | null;
}

/**
 * Where colleagues reach this daemon: the public URL when one is set; else, listening on every
 * interface, one URL per network address; else the one address it listens on, unless that is
 * this machine's loopback (no one else reaches it).
 */
function colleaguesUrls(config: OverviewRouteDeps['config'], port: number, scheme: 'http' | 'https'): string[] {
  if (config.publicUrl) return [config.publicUrl];
  if (listensOnAll(config.host)) return lanUrls(true, port, networkInterfaces(), scheme);
  if (isLoopback(config.host)) return [];
  return [`${scheme}://${urlHost(config.host)}:${port}`];
}

function tlsOf(tls: NonNullable<OverviewRouteDeps['tls']>): OverviewJson['tls'] {
  const s = tls.status();
  return {
    mode: s.mode,
    not_after: s.not_after,
    fingerprint: tls.ca?.fingerprint ?? null,
    local_ca: s.local_ca ?? null,
  };
}

async function overviewOf(deps: OverviewRouteDeps, ctx: Context, viewer: Viewer): Promise<OverviewJson> {
  const [counts, organizations, gettingStarted, filesBytes, disk, health, uploads, releases, jobs] = await Promise.all([
    deps.overview.counts(viewer),
    deps.overview.organizations(viewer),
    deps.overview.gettingStarted(viewer),
    deps.overview.storedBytes(),
    deps.space.usage(),
    deps.health.report(),
    deps.overview.uploads(viewer),
    deps.overview.releases(viewer),
    deps.overview.mirrorJobs(viewer),
  ]);
  return {
    version: VERSION,
    health: { status: health.status, checks: checksFor(ctx, health).checks as OverviewJson['health']['checks'] },
    lan_urls: colleaguesUrls(deps.config, ctx.req.socket.localPort ?? 0, deps.tls ? 'https' : 'http'),
    tls: deps.tls && tlsOf(deps.tls),
    storage: {
      files_bytes: filesBytes,
      disk_free_bytes: disk.free,
      disk_total_bytes: disk.total,
      reserve_bytes: deps.space.reserveBytes,
    },
    counts,
    organizations,
    getting_started: gettingStarted,
    // Each list holds its newest ACTIVITY_LIMIT, so the newest of all three are among them.
    activity: [...uploads, ...releases, ...jobs]
      .sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0))
      .slice(0, ACTIVITY_LIMIT),
  };
}

/**
 * `GET /api/boxyard/overview`: the web UI's first page for a signed-in user. Counts and activity
 * cover what the caller may see (everything, for an administrator); the disk is the daemon's.
 */
export function overviewRoutes(deps: OverviewRouteDeps): Router {
  const r = new Router();
  r.get(BOXYARD.overview.path, async (ctx) => {
    const p = requireUser(ctx);
    ctx.body = { overview: await overviewOf(deps, ctx, p.user.is_admin ? { all: true } : { userId: p.user.id }) };
  });
  return r;
}
