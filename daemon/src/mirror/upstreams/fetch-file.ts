import { ObjectStoreError } from '../../blobs/s3/s3-errors';
import { safeEqual } from '../../lib/crypto';
import { AppError, InsufficientStorageError, UpstreamError } from '../../lib/errors';
import {
  SizeMismatchError,
  type BlobRef,
  type BlobStore,
  type DigestAlgorithm,
  type StagedBlob,
} from '../../blobs/blob-store';
import type { BlobHolds } from '../../blobs/holds';
import type { UpstreamSource } from './source';
import { TransientUpstreamError } from './http';

export interface FileTask {
  /** Also the staging folder's id: bytes already there are kept and the rest asked with Range. */
  id: string;
  url: string;
  checksum: string | null;
  checksum_type: DigestAlgorithm | null;
}

export interface FetchOptions {
  signal?: AbortSignal;
  /**
   * Called with each chunk's size as it is stored (progress); `kept` for bytes not fetched now (staged or stored
   * before).
   */
  onBytes?: (n: number, kept?: boolean) => void;
  /** Called once the whole size is known. */
  onSize?: (size: number) => void;
  /** Points the caller's row at the stored file, under the same hold as the commit (blobs/holds.ts). */
  settle?: (blob: BlobRef) => Promise<void>;
  /** Called once every byte has arrived, before the file is made durable and checked. */
  received?: () => void;
}

/** What went wrong in words a user acts on; a full disk is its own error. */
export function explainStoreError(err: unknown, url: string): unknown {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    return new InsufficientStorageError(
      `The disk holding Boxyard's data folder is full (while storing ${url}). Free space, then run the job again; nothing was published.`,
    );
  }
  if (err instanceof SizeMismatchError) {
    return new TransientUpstreamError(
      `The upstream file ${url} was truncated: ${err.received} of ${err.expected} bytes arrived.`,
    );
  }
  // Local file-system errors and the bucket's own keep what they say; anything else broke the upstream stream.
  if (
    err instanceof AppError ||
    err instanceof ObjectStoreError ||
    (err as Error)?.name === 'AbortError' ||
    (code && (err as NodeJS.ErrnoException).syscall)
  )
    return err;
  return new TransientUpstreamError(`The download of ${url} broke off: ${(err as Error)?.message ?? String(err)}.`);
}

/** Checks a stored file against the upstream's declared checksum. */
export function verifyStaged(staged: StagedBlob, task: Pick<FileTask, 'checksum' | 'checksum_type' | 'url'>): void {
  if (!task.checksum || !task.checksum_type) return;
  const actual = staged.digests[task.checksum_type] ?? '';
  if (!safeEqual(actual, task.checksum)) {
    throw new UpstreamError(
      `Checksum mismatch for ${task.url}: its ${task.checksum_type} is ${actual}, the upstream declares ${task.checksum}. The file was discarded.`,
    );
  }
}

/**
 * Downloads one upstream file into the blob store: resumes from the bytes already staged (HTTP
 * Range; an upstream that ignores it starts over), hashes every needed digest in the same pass,
 * verifies size and checksum, and commits. A file whose declared sha256 is already stored is not
 * fetched at all. On a failure the staged bytes stay for the next attempt, unless they are wrong.
 */
export async function fetchFile(
  task: FileTask,
  source: UpstreamSource,
  store: { blobs: BlobStore; holds: BlobHolds },
  opts: FetchOptions = {},
): Promise<BlobRef> {
  const { blobs, holds } = store;
  const settled = async (blob: BlobRef) => {
    await opts.settle?.(blob);
    return blob;
  };
  const digest = task.checksum_type === 'sha256' ? task.checksum : null;
  if (digest) {
    const have = await holds.keep([digest], async () => {
      const found = await blobs.reuse(digest);
      return found && settled(found);
    });
    if (have) {
      opts.onSize?.(have.size);
      opts.onBytes?.(have.size, true);
      return have;
    }
  }
  const staged = await blobs.stagedSize(task.id);
  const opened = await source.open(task.url, staged, opts.signal);
  if (opened.size !== null) opts.onSize?.(opened.size);
  opts.onBytes?.(opened.offset, true);
  let result: StagedBlob;
  try {
    const body = opened.body;
    // The store attaches its pipeline after some awaits: an error before then stays on the stream
    // (the pipeline rejects with it) instead of being thrown as an uncaught 'error' event.
    body.on('error', () => undefined);
    await blobs.ensureRoom(opened.size === null ? 0 : opened.size - opened.offset);
    // Progress counts the bytes the store keeps, not those read: a daemon killed mid-file resumes
    // from what was written, and must not have reported more.
    let kept = 0;
    result = await blobs.append(task.id, body, {
      offset: opened.offset,
      algorithms: task.checksum_type ? [task.checksum_type] : [],
      expectedSize: opened.size ?? undefined,
      received: opts.received,
      written: (bytes) => {
        if (bytes > kept) opts.onBytes?.(bytes - kept);
        kept = Math.max(kept, bytes);
      },
    });
  } catch (err) {
    opened.body.destroy();
    const explained = explainStoreError(err, task.url);
    // A full disk (or one below the reserve) or a file longer than announced: the staged bytes are no use to a retry.
    if (
      explained instanceof InsufficientStorageError ||
      (err instanceof SizeMismatchError && err.received > err.expected)
    )
      await blobs.discard(task.id);
    throw explained;
  }
  try {
    verifyStaged(result, task);
  } catch (err) {
    await blobs.discard(task.id);
    throw err;
  }
  const verified = result;
  return holds.keep([verified.sha256], async () => {
    const blob = await blobs.commit(verified).catch((err: unknown) => {
      throw explainStoreError(err, task.url);
    });
    return settled(blob);
  });
}
