/** Whether a plan (a job's, or a dry run's) fits the data folder's disk. */
import type { DiskSpace } from '../../blobs/disk-space';
import { humanBytes } from '../../contract/bytes';
import type { BlobStore } from '../../blobs/blob-store';
import { InsufficientStorageError } from '../../lib/errors';

/**
 * Whether what a plan fetches fits the data folder's disk, keeping its reserve (null figures: a bucket, no disk to
 * count).
 */
export interface StorageFit {
  needed_bytes: number;
  free_bytes: number | null;
  reserve_bytes: number | null;
  free_after_bytes: number | null;
  fits: boolean;
}

export interface PlannedFileSize {
  /** The staging folder of a job's file (bytes already there are not fetched again). */
  id?: string;
  checksum: string | null;
  checksum_type: string | null;
  size: number | null;
}

/**
 * Bytes still to fetch: a file whose declared sha256 is stored already is not fetched (it is
 * reused), staged bytes are kept; a file of unknown size counts as none and is counted in `unknown`.
 */
export async function bytesToFetch(
  files: readonly PlannedFileSize[],
  blobs: BlobStore,
): Promise<{ bytes: number; unknown: number }> {
  let bytes = 0;
  let unknown = 0;
  for (const f of files) {
    if (f.checksum_type === 'sha256' && f.checksum && (await blobs.stat(f.checksum))) continue;
    if (f.size === null) {
      unknown++;
      continue;
    }
    bytes += Math.max(0, f.size - (f.id ? await blobs.stagedSize(f.id) : 0));
  }
  return { bytes, unknown };
}

export async function storageFit(space: DiskSpace | undefined, needed: number): Promise<StorageFit> {
  if (!space)
    return { needed_bytes: needed, free_bytes: null, reserve_bytes: null, free_after_bytes: null, fits: true };
  const free = await space.free();
  return {
    needed_bytes: needed,
    free_bytes: free,
    reserve_bytes: space.reserveBytes,
    free_after_bytes: free - needed,
    fits: free - needed >= space.reserveBytes,
  };
}

/** The refusal of a plan that does not fit: both sizes, and what to do. */
export function unfit(fit: StorageFit): InsufficientStorageError {
  const reserve = fit.reserve_bytes
    ? `, ${humanBytes(fit.reserve_bytes)} of which Boxyard keeps in reserve (BOXYARD_DISK_RESERVE_MB)`
    : '';
  return new InsufficientStorageError(
    `Not enough free disk space for this copy: it needs ${humanBytes(fit.needed_bytes)}, and the disk holding Boxyard's data folder has ${humanBytes(Math.max(0, fit.free_bytes ?? 0))} free${reserve}. ` +
      'Free space, or copy fewer versions (latest, versions, providers, architectures); nothing was fetched.',
  );
}
