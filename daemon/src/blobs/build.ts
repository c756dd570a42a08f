import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from '../config';
import type { Clock } from '../lib/clock';
import type { IdGen } from '../lib/ids';
import type { Database } from '../store/schema';
import { BlobCollector, type Retained } from './collector';
import { DiskSpace } from './disk-space';
import { FsBlobStore } from './fs-blob-store';
import { UploadRepository } from './uploads/repository';
import { UploadService } from './uploads/service';
import type { RegistryPort } from './registry-port';

export interface BlobsWiring {
  config: Pick<Config, 'dataDir' | 'uploadTtlHours' | 'diskReserveMb'>;
  db: Kysely<Database>;
  registry: RegistryPort;
  clock: Clock;
  ids: IdGen;
  log: Logger;
  /** What mirror jobs still need (kept by garbage collection). */
  retained?: Retained;
}

/** The blobs feature's services (called once from deps.ts). The daemon starts `blobCollector`. */
export function buildBlobs(w: BlobsWiring) {
  const space = DiskSpace.fromMegabytes(w.config.dataDir, w.config.diskReserveMb);
  const blobStore = new FsBlobStore(w.config.dataDir, space);
  const uploadRepo = new UploadRepository(w.db);
  const uploads = new UploadService(uploadRepo, blobStore, w.registry, w.clock, w.ids, w.config.uploadTtlHours);
  const blobCollector = new BlobCollector(blobStore, uploadRepo, w.registry, w.clock, w.log, w.retained);
  return { blobStore, uploads, blobCollector, space };
}
