import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { OrgService } from '../orgs/service';
import type { SettingsService } from '../auth/settings';
import type { BlobStore } from '../blobs/blob-store';
import type { BlobHolds } from '../blobs/holds';
import type { DiskSpace } from '../blobs/disk-space';
import type { Clock } from '../lib/clock';
import type { IdGen } from '../lib/ids';
import type { RegistryService } from '../registry/service';
import type { Database } from '../store/schema';
import { MirrorService } from './mirrors-service';
import { MirrorDryRun } from './plans/dry-run';
import { PullThroughCache } from './cache/pull-through';
import type { MirrorRepository } from './repository';
import type { UpstreamRepository } from './upstreams/repository';
import type { CacheRepository } from './cache/repository';
import { MirrorRunner } from './jobs/runner';
import { MirrorRights } from './run-rights';
import { UpstreamGate } from './upstreams/http';
import { Outbound } from './upstreams/outbound';
import { UpstreamService } from './upstreams/service';
import { UpstreamProbe } from './upstreams/probe';
import { CacheAdmin } from './cache/admin';
import { FolderImport } from './actions/import-folder';
import { FolderExport } from './actions/export-folder';
import type { Metrics } from '../http/metrics';

export interface MirrorWiring {
  db: Kysely<Database>;
  repo: MirrorRepository;
  upstreamRepo: UpstreamRepository;
  cacheRepo: CacheRepository;
  orgs: OrgService;
  settings: SettingsService;
  registry: RegistryService;
  blobs: BlobStore;
  holds: BlobHolds;
  /** The data folder's disk when blobs are stored there (a mirror's plan must fit it). */
  space?: DiskSpace;
  /** Files all mirror jobs download at once. */
  downloads: number;
  metrics?: Metrics;
  clock: Clock;
  ids: IdGen;
  log: Logger;
}

/** The mirror feature's services (called once from deps.ts). The daemon starts `runner`. */
export function buildMirror(w: MirrorWiring) {
  const outbound = new Outbound(async () => ({ allowed: (await w.settings.get()).mirror_allowed_hosts }));
  const gate = new UpstreamGate(w.upstreamRepo, w.settings, w.clock, outbound);
  const upstreams = new UpstreamService(w.upstreamRepo, w.clock, w.ids, outbound, w.log);
  const rights = new MirrorRights(w.orgs);
  const runner = new MirrorRunner(
    {
      repo: w.repo,
      upstreamRepo: w.upstreamRepo,
      gate,
      blobs: w.blobs,
      holds: w.holds,
      space: w.space,
      publisher: w.registry.publisher,
      orgs: w.orgs,
      rights,
      clock: w.clock,
      ids: w.ids,
      log: w.log,
      metrics: w.metrics,
    },
    w.downloads,
  );
  const mirrors = new MirrorService(w.repo, w.upstreamRepo, upstreams, w.orgs, runner, rights, w.clock, w.ids);
  const cache = new PullThroughCache({
    cacheRepo: w.cacheRepo,
    upstreamRepo: w.upstreamRepo,
    gate,
    settings: w.settings,
    orgs: w.orgs,
    publisher: w.registry.publisher,
    blobs: w.blobs,
    holds: w.holds,
    clock: w.clock,
    log: w.log,
  });
  const probe = new UpstreamProbe(upstreams, gate, w.clock);
  const dryRun = new MirrorDryRun({
    upstreams,
    orgs: w.orgs,
    gate,
    blobs: w.blobs,
    space: w.space,
    publisher: w.registry.publisher,
    ids: w.ids,
    clock: w.clock,
  });
  const cacheAdmin = new CacheAdmin(w.cacheRepo, w.registry);
  const folderImport = new FolderImport(upstreams, mirrors, w.repo);
  const folderExport = new FolderExport(w.registry, w.blobs, w.clock);
  return {
    repo: w.repo,
    upstreamRepo: w.upstreamRepo,
    cacheRepo: w.cacheRepo,
    log: w.log,
    holds: w.holds,
    gate,
    upstreams,
    runner,
    mirrors,
    dryRun,
    cache,
    probe,
    cacheAdmin,
    folderImport,
    folderExport,
  };
}
export type MirrorFeature = ReturnType<typeof buildMirror>;
