import type { Readable, Writable } from 'node:stream';
import { DIGEST_HEX_LENGTH, type DigestAlgorithm } from '../contract/checksums';

/** The digests the store computes: the checksum types a provider may declare (contract/checksums.ts). */
export type { DigestAlgorithm };
export const isDigestAlgorithm = (name: string): name is DigestAlgorithm => Object.hasOwn(DIGEST_HEX_LENGTH, name);

export interface BlobRef {
  sha256: string;
  size: number;
}

/** Bytes received into an upload's staging area, not yet visible as a blob. */
export interface StagedBlob extends BlobRef {
  uploadId: string;
  /** Lower-case hex of every requested digest (always sha256). */
  digests: Partial<Record<DigestAlgorithm, string>>;
}

export interface WriteOptions {
  /** Extra digests computed in the same pass as sha256. */
  algorithms?: DigestAlgorithm[];
  /** The declared Content-Length: fewer (or more) bytes is a failed upload. */
  expectedSize?: number;
  /** Called once the whole body is written, before it is made durable (fsync) and checked. */
  received?: () => void;
  /**
   * Told how many bytes of this body are kept so far, as they grow: written to the staging file
   * (what a resume after a crash keeps), or on a bucket passed on to the upload. Progress is
   * counted from it, so a mirror job never reports bytes it would have to fetch again.
   */
  written?: (bytes: number) => void;
}

/** An inclusive byte range, as in HTTP `Range: bytes=start-end`. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Content-addressed storage of box files. Kept tiny so that an S3-compatible implementation can
 * replace the file system without touching features (docs/ARCHITECTURE.md, "An upload's way").
 */
export interface BlobStore {
  /**
   * Refuses (InsufficientStorageError, a 507) when storing `bytes` more would leave less free space
   * than the reserve kept on the disk: asked before a body is accepted. Writes check again as they
   * stream, and a full disk fails them with the same error, leaving nothing staged that counts.
   */
  ensureRoom(bytes: number): Promise<void>;
  /** Streams `body` into the staging area of `uploadId`, hashing in the same pass; durable on return. */
  write(uploadId: string, body: Readable, opts?: WriteOptions): Promise<StagedBlob>;
  /**
   * Resumes a staged write: keeps the first `offset` staged bytes (hashed again from disk, never
   * fetched again), appends `body`, and answers as `write` for the whole file. `expectedSize` is
   * the whole file's size.
   */
  append(uploadId: string, body: Readable, opts: WriteOptions & { offset: number }): Promise<StagedBlob>;
  /** How many bytes an upload's staging area holds (0 when it has none). */
  stagedSize(uploadId: string): Promise<number>;
  /** Moves staged bytes to their content address; same content already stored is kept once. */
  commit(staged: StagedBlob): Promise<BlobRef>;
  /** Forgets an upload's staging area (missing is fine). */
  discard(uploadId: string): Promise<void>;
  stat(sha256: string): Promise<BlobRef | null>;
  /**
   * A stored blob about to be referenced again (a mirror or the cache found the same content):
   * marked fresh, as a re-commit is, so a running garbage collection spares it. Null when missing.
   */
  reuse(sha256: string): Promise<BlobRef | null>;
  read(sha256: string, range?: ByteRange): Readable;
  /**
   * Writes a stored blob (or a range of it) to `out`, an HTTP response, and ends it: the download
   * path, which must keep memory flat however many gigabytes go out. Rejects when the blob is
   * missing or the write fails.
   */
  send(sha256: string, range: ByteRange, out: Writable): Promise<void>;
  /**
   * Deletes a stored blob (missing is fine). With `untouchedSince`, spares it when it was modified
   * (committed again, reused) after that time, and answers false: garbage collection's look, just
   * before the delete, for an upload of the same content that marked it fresh after it was listed.
   */
  remove(sha256: string, opts?: { untouchedSince?: Date }): Promise<boolean>;
  /** Every stored blob with its last modification (commit or re-commit) time. */
  list(): AsyncIterable<{ sha256: string; modifiedAt: Date }>;
  /** Every upload staging area with its last modification time. */
  listStaged(): AsyncIterable<{ uploadId: string; modifiedAt: Date }>;
  /**
   * A short-lived URL that downloads a stored blob straight from the store, without the daemon
   * (S3: a presigned GET, valid 5 minutes; GET only, no HEAD). Stores without one leave it out.
   */
  downloadUrl?(sha256: string, filename?: string): Promise<string>;
  /**
   * Aborts the store's multipart uploads begun before `olderThan` (left by a crash, or by an abort
   * that failed) and answers how many. Garbage collection calls it; stores without any leave it out.
   */
  sweepMultipart?(olderThan: Date): Promise<number>;
}

export const isSha256 = (s: string): boolean => /^[0-9a-f]{64}$/.test(s);

/** Upload (staging) ids: safe as a file name and as an object key segment. */
export const UPLOAD_ID = /^[A-Za-z0-9_-]{1,128}$/;

export function checkedUploadId(id: string): string {
  if (!UPLOAD_ID.test(id)) throw new Error(`invalid upload id ${JSON.stringify(id)}`);
  return id;
}

export function checkedSha(sha256: string): string {
  if (!isSha256(sha256)) throw new Error(`invalid sha256 ${JSON.stringify(sha256)}`);
  return sha256;
}

/** Raised when the body ends before (or runs past) the declared Content-Length. */
export class SizeMismatchError extends Error {
  constructor(
    readonly expected: number,
    readonly received: number,
  ) {
    super(`expected ${expected} bytes, received ${received}`);
  }
}
