import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from '../config';
import type { Clock } from '../lib/clock';
import type { IdGen } from '../lib/ids';
import type { Database } from '../store/schema';
import { BlobCollector, type Retained } from './collector';
import { DiskSpace } from './disk-space';
import { FsBlobStore } from './fs-blob-store';
import type { BlobStore } from './blob-store';
import { s3ClientFor } from './s3/bucket';
import { parseS3Location } from './s3/location';
import { S3BlobStore } from './s3/s3-blob-store';
import { UploadRepository } from './uploads/repository';
import { UploadService } from './uploads/service';
import type { RegistryPort } from './registry-port';

export interface BlobsWiring {
  config: Pick<Config, 'dataDir' | 'uploadTtlHours' | 'diskReserveMb' | 'blobs' | 'database'>;
  db: Kysely<Database>;
  registry: RegistryPort;
  clock: Clock;
  ids: IdGen;
  log: Logger;
  /** What mirror jobs still need (kept by garbage collection). */
  retained?: Retained;
}

/**
 * The bucket the blobs setting names (credentials: the AWS SDK's default chain), else the data
 * folder. `space` is the data folder's disk either way: it still holds secret.key (and SQLite).
 */
function blobStoreFor(config: BlobsWiring['config'], space: DiskSpace): { store: BlobStore; close: () => void } {
  if (!config.blobs) return { store: new FsBlobStore(config.dataDir, space), close: () => undefined };
  const location = parseS3Location(config.blobs);
  const client = s3ClientFor(location);
  return { store: new S3BlobStore(client, location), close: () => client.destroy() };
}

/** The blobs feature's services (called once from deps.ts). The daemon starts `blobCollector`. */
export function buildBlobs(w: BlobsWiring) {
  const space = DiskSpace.fromMegabytes(w.config.dataDir, w.config.diskReserveMb);
  const { store: blobStore, close } = blobStoreFor(w.config, space);
  const uploadRepo = new UploadRepository(w.db);
  const uploads = new UploadService(uploadRepo, blobStore, w.registry, w.clock, w.ids, w.config.uploadTtlHours);
  const blobCollector = new BlobCollector(blobStore, uploadRepo, w.registry, w.clock, w.log, w.retained, { shared: w.config.database !== undefined });
  /** `close`: frees the S3 client's connections (after the last request). */
  return { blobStore, uploads, blobCollector, space, close };
}
