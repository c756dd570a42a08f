import Router from '@koa/router';
import { ROOT } from '../../http/route-table';
import type { Context, Next } from 'koa';
import { PassThrough } from 'node:stream';
import type { Logger } from 'pino';
import type { Principal } from '../../auth/accounts-service';
import type { BlobStore } from '../../blobs/blob-store';
import type { BlobHolds } from '../../blobs/holds';
import type { IdGen } from '../../lib/ids';
import { OfflineError } from '../../lib/errors';
import type { RegistryService } from '../../registry/service';
import type { ProviderRow } from '../../registry/repository';
import { explainStoreError, verifyStaged } from '../upstreams/fetch-file';
import type { UpstreamRepository } from '../upstreams/repository';
import type { CacheRepository } from './repository';
import type { PullThroughCache } from './pull-through';
import { sourceFor } from '../upstreams/source';
import type { UpstreamGate } from '../upstreams/http';

declare module 'koa' {
  interface DefaultState {
    /** Set by the pull-through cache: the catalog lists only what is stored here. */
    catalogHeldOnly?: boolean;
  }
}

export interface CacheRouteDeps {
  cacheRepo: CacheRepository;
  upstreamRepo: UpstreamRepository;
  gate: UpstreamGate;
  registry: RegistryService;
  blobs: BlobStore;
  holds: BlobHolds;
  ids: IdGen;
  log: Logger;
}

/** Mounted just before the registry's catalog routes: fills the cache, then hands over. */
export function cacheCatalogRoutes(deps: { cache: PullThroughCache }): Router {
  const r = new Router();
  const catalog = async (ctx: Context, next: Next) => {
    const { org, box } = ctx.params as { org: string; box: string };
    const answer = await deps.cache.ensureCatalog(org, box);
    if (answer.offlineMiss)
      throw new OfflineError(
        `Boxyard is offline and has not cached ${org}/${box}: it cannot ask its upstream now. Switch offline mode off, or add the box while online.`,
      );
    ctx.state.catalogHeldOnly = answer.heldOnly;
    await next();
  };
  for (const route of [ROOT.catalogV2, ROOT.catalog]) r.get(route.path, catalog);
  return r;
}

/**
 * Mounted just before the registry's download route: streams a cached provider's file from the
 * upstream to its first client while it is stored. Everything else falls through.
 */
export function cacheDownloadRoutes(deps: CacheRouteDeps): Router {
  const r = new Router();
  const inflight = new Set<string>();
  r.get(ROOT.download.path, async (ctx, next) => {
    const p = ctx.params;
    const ref = { username: p.username, box: p.box, version: p.version, provider: p.provider, architecture: p.arch };
    const found = await deps.registry
      .resolveProvider(ctx.state.principal as Principal, ref, 'download')
      .catch(() => null);
    if (!found || found.provider.blob_sha256 || !found.provider.source_url) return next();
    if (await deps.gate.isOffline()) {
      throw new OfflineError(
        `Boxyard is offline and has not cached ${p.username}/${p.box} ${p.version} ${p.provider} (${p.arch}) yet.`,
      );
    }
    const cached = await deps.cacheRepo.cachedBox(found.box.id);
    const upstream = cached?.upstream_id ? await deps.upstreamRepo.upstream(cached.upstream_id) : undefined;
    if (!upstream) return next();
    const opened = await sourceFor(upstream, deps.gate).open(found.provider.source_url, 0);
    ctx.type = 'application/octet-stream';
    if (opened.size !== null) ctx.length = opened.size;
    if (ctx.method === 'HEAD') {
      opened.body.destroy();
      return;
    }
    const toClient = new PassThrough({ highWaterMark: 1024 * 1024 });
    const outs = [toClient];
    // A second client while the first fetch runs gets the upstream's bytes without storing them;
    // so does every client while the disk is below its reserve (reads go on while it is full).
    if (!inflight.has(found.provider.id) && (await hasRoom(deps, found.provider, opened.size))) {
      inflight.add(found.provider.id);
      const toStore = new PassThrough({ highWaterMark: 1024 * 1024 });
      // The store's pipeline starts after some awaits; it rejects with an earlier error then.
      toStore.on('error', () => undefined);
      outs.push(toStore);
      opened.body.pipe(toStore);
      void store(deps, found.provider, toStore, opened.size).finally(() => inflight.delete(found.provider.id));
    }
    opened.body.pipe(toClient);
    // pipe() forwards no errors: a broken upstream must end both copies.
    opened.body.on('error', (err) => {
      for (const out of outs) out.destroy(err);
    });
    // A client that goes away does not stop the fetch: the cache still gets the whole file; a
    // client whose copy is not stored takes the upstream connection with it.
    ctx.res.once('close', () => {
      if (ctx.res.writableFinished) return;
      opened.body.unpipe(toClient);
      if (outs.length === 1) opened.body.destroy();
    });
    ctx.res.once('finish', () => {
      deps.registry.countDownload(found.box.id).catch(() => undefined);
    });
    ctx.body = toClient;
  });
  return r;
}

/** Whether the file fits above the disk's reserve; when not, it is passed on without being stored. */
async function hasRoom(deps: CacheRouteDeps, provider: ProviderRow, size: number | null): Promise<boolean> {
  try {
    await deps.blobs.ensureRoom(size ?? 0);
    return true;
  } catch (err) {
    deps.log.warn(
      { err, provider: provider.id },
      'pull-through: not stored, the disk is below its reserve; the file is passed on only',
    );
    return false;
  }
}

/** Stores what streams by, verified like a mirrored file, and points the provider at it. */
async function store(
  deps: CacheRouteDeps,
  provider: ProviderRow,
  body: PassThrough,
  size: number | null,
): Promise<void> {
  const stagingId = deps.ids.id('cache');
  try {
    const staged = await deps.blobs
      .write(stagingId, body, {
        algorithms: provider.checksum_type ? [provider.checksum_type] : [],
        expectedSize: size ?? undefined,
      })
      .catch((err: unknown) => {
        throw explainStoreError(err, provider.source_url ?? '');
      });
    verifyStaged(staged, {
      checksum: provider.checksum,
      checksum_type: provider.checksum_type,
      url: provider.source_url ?? '',
    });
    // Stored and referenced under a hold: garbage collection of the same content waits or is waited for.
    await deps.holds.keep([staged.sha256], async () =>
      deps.registry.publisher.attachFetched(provider.id, await deps.blobs.commit(staged)),
    );
  } catch (err) {
    body.resume();
    await deps.blobs.discard(stagingId).catch(() => undefined);
    deps.log.warn({ err, provider: provider.id }, 'pull-through: the fetched file was not stored');
  }
}
