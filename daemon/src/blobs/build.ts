import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from '../config';
import type { Clock } from '../lib/clock';
import type { IdGen } from '../lib/ids';
import type { Database } from '../store/schema';
import { BlobCollector } from './collector';
import { BlobHolds, type BlobReferrer } from './holds';
import { DiskSpace } from './disk-space';
import { FsBlobStore } from './fs-blob-store';
import type { BlobStore } from './blob-store';
import { parseS3Location } from './s3/location';
import { UploadRepository } from './uploads/repository';
import { UploadService } from './uploads/service';
import type { RegistryPort } from './registry-port';
import type { Metrics } from '../http/metrics';

export interface BlobsWiring {
  config: Pick<
    Config,
    'dataDir' | 'uploadTtlHours' | 'directUploadLimitBytes' | 'diskReserveMb' | 'blobs' | 'database'
  >;
  db: Kysely<Database>;
  registry: RegistryPort;
  clock: Clock;
  ids: IdGen;
  log: Logger;
  /** Counts stored uploads (metrics). */
  metrics?: Metrics;
  /** What mirror jobs still need (kept by garbage collection): their staging and fetched blobs. */
  mirrorJobs?: BlobReferrer & { retainedStaging(): Promise<Set<string>> };
}

/**
 * The bucket the blobs setting names (credentials: the AWS SDK's default chain), else the data
 * folder. `space` is the data folder's disk either way: it still holds secret.key (and SQLite).
 */
async function blobStoreFor(
  config: BlobsWiring['config'],
  space: DiskSpace,
): Promise<{ store: BlobStore; close: () => void }> {
  if (!config.blobs) return { store: new FsBlobStore(config.dataDir, space), close: () => undefined };
  const location = parseS3Location(config.blobs);
  // Loaded only when asked for: the AWS SDK was most of the embedded default's start time.
  const [{ s3ClientFor }, { S3BlobStore }] = await Promise.all([import('./s3/bucket'), import('./s3/s3-blob-store')]);
  const client = s3ClientFor(location);
  return { store: new S3BlobStore(client, location), close: () => client.destroy() };
}

/** The blobs feature's services (called once from deps.ts). The daemon starts `blobCollector`. */
export async function buildBlobs(w: BlobsWiring) {
  const space = DiskSpace.fromMegabytes(w.config.dataDir, w.config.diskReserveMb);
  const { store: blobStore, close } = await blobStoreFor(w.config, space);
  const uploadRepo = new UploadRepository(w.db);
  const holds = new BlobHolds(w.db, w.ids);
  const uploads = new UploadService(
    uploadRepo,
    blobStore,
    holds,
    w.registry,
    w.clock,
    w.ids,
    { ttlHours: w.config.uploadTtlHours, directLimitBytes: w.config.directUploadLimitBytes },
    w.metrics,
  );
  const mirror = w.mirrorJobs;
  const blobCollector = new BlobCollector(
    {
      blobs: blobStore,
      uploads: uploadRepo,
      holds,
      clock: w.clock,
      log: w.log,
      referrers: [w.registry, uploadRepo, ...(mirror ? [mirror] : [])],
      retainedStaging: mirror && (() => mirror.retainedStaging()),
    },
    { shared: w.config.database !== undefined },
  );
  /** `close`: frees the S3 client's connections (after the last request). */
  return { blobStore, holds, uploads, blobCollector, space, close };
}
