import Router from '@koa/router';
import { BOXYARD } from '../http/route-table';
import { validated } from '../http/validate';
import type { BoxStatsAnswer } from '../contract/wire/box-stats';
import type { BoxStats } from './details';
import { BoxParams } from './schemas';
import { caller } from './route-helpers';
import type { RegistryService } from './service';

export interface StatsRouteDeps {
  registry: Pick<RegistryService, 'stats'>;
}

/** Whether a local value is still what the mirror last took from the upstream, or was edited here. */
const originOf = (local: string | number, synced: string | number): 'upstream' | 'edited' =>
  local === synced ? 'upstream' : 'edited';
/** The same; null when the mirror took nothing for it. */
const origin = (local: string | number, synced: string | number | null | undefined): 'upstream' | 'edited' | null =>
  synced === null || synced === undefined ? null : originOf(local, synced);

export function boxStatsJson(s: BoxStats): BoxStatsAnswer {
  const f = s.followed;
  const versions = s.detail.versions.map((v) => {
    const providers = v.providers.map((p) => ({
      name: p.name,
      architecture: p.architecture,
      size: p.size,
      downloads: s.downloads.get(p.id) ?? 0,
    }));
    return {
      version: v.version.version,
      downloads: providers.reduce((n, p) => n + p.downloads, 0),
      providers,
      upstream: origin(v.version.description, f?.versions.get(v.version.version)),
    };
  });
  const box = s.detail.box;
  const upstream = f
    ? {
        mirror_id: f.box.mirror_id,
        synced_at: f.box.synced_at,
        fields: {
          short_description: originOf(box.short_description, f.box.short_description),
          description: originOf(box.description, f.box.description),
          private: originOf(box.private, f.box.private),
        },
      }
    : null;
  return { stats: { downloads: box.downloads, may_manage: s.mayManage, versions, upstream } };
}

/**
 * The web UI's box page numbers, under /api/boxyard. Anyone who may read the box may read them
 * (anonymous visitors of a public box too); an invisible box is "not found", as in the box API.
 */
export function statsRoutes(deps: StatsRouteDeps): Router {
  const r = new Router();
  r.get(
    BOXYARD.boxStats.path,
    validated({ params: BoxParams }, async (ctx, { params }) => {
      ctx.body = boxStatsJson(await deps.registry.stats(caller(ctx), { username: params.username, box: params.name }));
    }),
  );
  return r;
}
