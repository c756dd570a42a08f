import Router from '@koa/router';
import { BOXYARD } from '../http/route-table';
import { validated } from '../http/validate';
import type { BoxStatsAnswer } from '../contract/wire-box-stats';
import type { BoxStats } from './details';
import { BoxParams } from './schemas';
import { caller } from './route-helpers';
import type { RegistryService } from './service';

export interface StatsRouteDeps { registry: Pick<RegistryService, 'stats'> }

export function boxStatsJson(s: BoxStats): BoxStatsAnswer {
  const versions = s.detail.versions.map((v) => {
    const providers = v.providers.map((p) => ({ name: p.name, architecture: p.architecture, size: p.size, downloads: s.downloads.get(p.id) ?? 0 }));
    return { version: v.version.version, downloads: providers.reduce((n, p) => n + p.downloads, 0), providers };
  });
  return { stats: { downloads: s.detail.box.downloads, may_manage: s.mayManage, versions } };
}

/**
 * The web UI's box page numbers, under /api/boxyard. Anyone who may read the box may read them
 * (anonymous visitors of a public box too); an invisible box is "not found", as in the box API.
 */
export function statsRoutes(d: StatsRouteDeps): Router {
  const r = new Router();
  r.get(BOXYARD.boxStats.path, validated({ params: BoxParams }, async (ctx, { params }) => {
    ctx.body = boxStatsJson(await d.registry.stats(caller(ctx), { username: params.username, box: params.name }));
  }));
  return r;
}
