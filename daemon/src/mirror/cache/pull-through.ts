import type { Logger } from 'pino';
import type { Namespace, OrgService } from '../../orgs/service';
import type { SettingsService } from '../../auth/settings';
import type { BlobStore } from '../../blobs/blob-store';
import type { BlobHolds } from '../../blobs/holds';
import type { Clock } from '../../lib/clock';
import type { PublishService } from '../../registry/versions/publish-service';
import { AccountName } from '../../contract/names';
import { BoxName } from '../../contract/bodies/registry';
import { planBox } from '../plans/box-plan';
import type { UpstreamRepository, UpstreamRow } from '../upstreams/repository';
import type { CacheRepository } from './repository';
import { sourceFor } from '../upstreams/source';
import type { UpstreamGate } from '../upstreams/http';

export interface CacheDeps {
  cacheRepo: CacheRepository;
  upstreamRepo: UpstreamRepository;
  gate: UpstreamGate;
  settings: SettingsService;
  orgs: OrgService;
  publisher: PublishService;
  blobs: BlobStore;
  holds: BlobHolds;
  clock: Clock;
  log: Logger;
}

/**
 * What a catalog request may list: `heldOnly` when the upstream cannot be asked right now;
 * `offlineMiss` when the box is not here and offline mode kept the cache from asking for it.
 */
export interface CacheAnswer {
  heldOnly: boolean;
  offlineMiss?: boolean;
}

/**
 * The pull-through cache's catalogs (Pulp's on-demand policy, Docker distribution's proxy): a box
 * that is not local is read from the configured upstream and recorded with its versions and
 * providers, but without files; each file is fetched on its first download (routes.ts, cacheDownloadRoutes).
 * A cached box's catalog is asked again when older than `cache_max_age_minutes`; when the
 * upstream cannot be reached, the catalog lists only what is stored here, so vagrant never picks
 * a version it could not download.
 */
export class PullThroughCache {
  constructor(private readonly deps: CacheDeps) {}

  async ensureCatalog(org: string, box: string): Promise<CacheAnswer> {
    // A local box the cache did not make is the common case, and every catalog request asks:
    // it is settled in two lookups (from memory), before names, settings and namespaces are checked.
    const local = await this.deps.publisher.boxAt(org, box);
    const cached = local ? await this.deps.cacheRepo.cachedBox(local.id) : undefined;
    if (local && !cached) return { heldOnly: false };
    if (!local && (!AccountName.safeParse(org).success || !BoxName.safeParse(box).success)) return { heldOnly: false };
    const settings = await this.deps.settings.get();
    const ns = await this.deps.orgs.namespace(org);
    // Upstream boxes never appear among a local user's or a real organization's: only in
    // namespaces the cache made (organizations without members).
    if (ns && !cached && !(await this.isCacheNamespace(ns))) return { heldOnly: false };
    const upstreamId = cached?.upstream_id ?? settings.pull_through_upstream_id;
    const upstream = upstreamId ? await this.deps.upstreamRepo.upstream(upstreamId) : undefined;
    if (!upstream) return { heldOnly: cached !== undefined };
    if (
      cached &&
      Date.parse(cached.synced_at) + settings.cache_max_age_minutes * 60_000 > this.deps.clock.now().getTime()
    ) {
      // Fresh enough not to ask; but a failing upstream could not deliver what is not stored.
      return { heldOnly: settings.offline || upstream.failures > 0 };
    }
    if (settings.offline) return { heldOnly: true, offlineMiss: !local };
    try {
      return { heldOnly: !(await this.refresh(upstream, ns, org, box)) };
    } catch (err) {
      this.deps.log.warn(
        { err, box: `${org}/${box}`, upstream: upstream.name },
        'pull-through: upstream catalog unavailable; serving what is cached',
      );
      return { heldOnly: true };
    }
  }

  /** Reads the upstream catalog and records what is new; false when the upstream has no such box. */
  private async refresh(upstream: UpstreamRow, ns: Namespace | undefined, org: string, box: string): Promise<boolean> {
    const name = `${org}/${box}`;
    const fetched = await sourceFor(upstream, this.deps.gate).catalog(name);
    if (!fetched) return false;
    const existing = ns ? await this.deps.publisher.versionNumbers(ns, box) : new Set<string>();
    const planned = planBox(name, name, fetched, { providers: [], architectures: [] }, existing);
    const namespace = ns ?? (await this.namespaceFor(org));
    const sha256 = (p: { checksum: string | null; checksum_type: string | null }) =>
      p.checksum_type === 'sha256' && p.checksum ? p.checksum : null;
    const digests = planned.versions.flatMap((v) => v.providers.flatMap((p) => sha256(p) ?? []));
    // Reused and published under a hold: garbage collection of the same content waits or is waited for.
    const result = await this.deps.holds.keep(digests, async () => {
      const versions = [];
      for (const v of planned.versions) {
        const providers = [];
        // A file this daemon already holds (same sha256) needs no fetch.
        for (const p of v.providers) {
          const digest = sha256(p);
          providers.push({ ...p, blob: digest ? await this.deps.blobs.reuse(digest) : null, source_url: p.url });
        }
        versions.push({ ...v, providers });
      }
      return this.deps.publisher.publish({
        namespace,
        name: box,
        short_description: planned.short_description,
        description: planned.description,
        private: upstream.token !== null,
        versions,
        existing: 'skip',
        release: true,
      });
    });
    await this.deps.cacheRepo.upsertCachedBox({
      box_id: result.box.id,
      upstream_id: upstream.id,
      source: name,
      synced_at: this.deps.clock.now().toISOString(),
    });
    return true;
  }

  private async isCacheNamespace(ns: Namespace): Promise<boolean> {
    return ns.kind === 'organization' && (await this.deps.orgs.members(ns.organization)).length === 0;
  }

  /** The cache's boxes live under the upstream's names: an organization without members is made for them. */
  private async namespaceFor(org: string): Promise<Namespace> {
    try {
      await this.deps.orgs.create({ name: org }, null);
    } catch (err) {
      // Another request made it first.
      if (!(await this.deps.orgs.namespace(org))) throw err;
    }
    const made = await this.deps.orgs.namespace(org);
    if (!made) throw new Error(`The organization "${org}" was made for the pull-through cache, yet it is not there.`);
    return made;
  }
}
