import { createReadStream, createWriteStream } from 'node:fs';
import { chmod, open, readdir, rename, rm, stat, truncate, unlink, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  checkedSha,
  checkedUploadId,
  isSha256,
  SizeMismatchError,
  UPLOAD_ID,
  type BlobRef,
  type BlobStore,
  type ByteRange,
  type DigestAlgorithm,
  type StagedBlob,
  type WriteOptions,
} from './blob-store';
import { digesterFor } from './digester';
import { hashingTap } from './hashing-tap';
import { detachedBody } from './detached-body';
import type { DiskSpace } from './disk-space';
import { fsyncPath, PRIVATE_FILE, privateDir } from '../lib/private-files';
import { diskFullError } from '../store/storage-errors';
import { BufferPool } from './downloads/buffer-pool';
import { sendRange } from './downloads/send-range';

/*
 * Disk layout under the data folder (after Docker distribution's blob store):
 *
 *   blobs/sha256/ab/abcdef0123…      one file per distinct content, named by its full sha256 hex,
 *                                    fanned out by the first two hex digits. Only complete,
 *                                    fsynced, verified files ever appear here (by rename).
 *   uploads/<upload-id>/data         an upload being received. Written and hashed in one pass,
 *                                    fsynced, then renamed into blobs/ (same file system, so the
 *                                    rename is atomic). A crash leaves at worst this folder, which
 *                                    garbage collection removes.
 *
 * The database points providers at a digest only after the rename, so a row never names a
 * missing or partial file. Folders are created 0700 and files 0600 whatever the umask: only the
 * daemon's user reads them (the data folder's modes: store/data-folder.ts).
 */

const READ_CHUNK = 1024 * 1024;
/**
 * Each download's two buffers (send-range.ts): 256 KiB fell below 0.8 of nginx, 1 MiB added 8 MiB for eight downloads.
 */
const SEND_CHUNK = 512 * 1024;
/** Send buffers kept for the next downloads: two each for eight at once (8 MiB at most). */
const SEND_BUFFERS_KEPT = 16;

export class FsBlobStore implements BlobStore {
  private readonly blobsDir: string;
  private readonly uploadsDir: string;
  private readonly sendBuffers = new BufferPool(SEND_CHUNK, SEND_BUFFERS_KEPT);

  /** `space`: the free-space reserve every write keeps (none: only a full disk stops a write). */
  constructor(
    dataDir: string,
    private readonly space?: DiskSpace,
  ) {
    this.blobsDir = join(dataDir, 'blobs', 'sha256');
    this.uploadsDir = join(dataDir, 'uploads');
  }

  async ensureRoom(bytes: number): Promise<void> {
    await this.space?.ensureRoom(bytes);
  }

  blobPath(sha256: string): string {
    return join(this.blobsDir, checkedSha(sha256).slice(0, 2), sha256);
  }

  private stagedPath(uploadId: string): string {
    return join(this.uploadsDir, checkedUploadId(uploadId), 'data');
  }

  async write(uploadId: string, body: Readable, opts: WriteOptions = {}): Promise<StagedBlob> {
    await rm(join(this.uploadsDir, uploadId), { recursive: true, force: true });
    await privateDir(join(this.uploadsDir, uploadId)).catch(rethrowFull);
    return this.receive(uploadId, body, opts, 0);
  }

  async append(uploadId: string, body: Readable, opts: WriteOptions & { offset: number }): Promise<StagedBlob> {
    if (opts.offset === 0) return this.write(uploadId, body, opts);
    const have = await this.stagedSize(uploadId);
    if (have < opts.offset)
      throw new Error(`staged upload ${uploadId} holds ${have} bytes, fewer than the ${opts.offset} to resume from`);
    await truncate(this.stagedPath(uploadId), opts.offset);
    return this.receive(uploadId, body, opts, opts.offset);
  }

  /**
   * Streams `body` after the first `kept` staged bytes, hashing everything (the kept bytes from
   * disk, in 1 MiB reads, then the new ones as they arrive) beside the I/O; fsyncs; checks the size.
   */
  private async receive(uploadId: string, body: Readable, opts: WriteOptions, kept: number): Promise<StagedBlob> {
    const file = this.stagedPath(uploadId);
    const algorithms = [...new Set<DigestAlgorithm>(['sha256', ...(opts.algorithms ?? [])])];
    const digester = digesterFor(algorithms, opts.expectedSize);
    const counter = { bytes: 0 };
    const input = detachedBody(body, READ_CHUNK);
    try {
      if (kept > 0)
        for await (const chunk of createReadStream(file, { highWaterMark: READ_CHUNK }))
          await digester.update(chunk as Buffer);
      const out = createWriteStream(file, {
        flags: kept > 0 ? 'a' : 'wx',
        mode: PRIVATE_FILE,
        highWaterMark: READ_CHUNK,
      });
      const guard = this.space?.guard(opts.expectedSize === undefined ? undefined : opts.expectedSize - kept);
      const stages: Array<Transform> = guard ? [guard, hashingTap(digester, counter)] : [hashingTap(digester, counter)];
      const written = opts.written;
      // What the file holds, told as each chunk passes (the chunks before it are written by then or soon).
      if (written)
        stages.push(
          new Transform({
            transform(chunk, _e, cb) {
              written(out.bytesWritten);
              cb(null, chunk);
            },
          }),
        );
      await pipeline([input.source, ...stages, out]);
      written?.(out.bytesWritten);
      opts.received?.();
      await chmod(file, PRIVATE_FILE);
      await fsyncPath(file);
      const size = kept + counter.bytes;
      if (opts.expectedSize !== undefined && size !== opts.expectedSize)
        throw new SizeMismatchError(opts.expectedSize, size);
      const digests = await digester.digest();
      return { uploadId, size, sha256: digests.sha256, digests };
    } catch (err) {
      input.release();
      return rethrowFull(err);
    } finally {
      digester.destroy();
    }
  }

  async stagedSize(uploadId: string): Promise<number> {
    const s = await stat(this.stagedPath(uploadId)).catch(() => null);
    return s?.size ?? 0;
  }

  async commit(staged: StagedBlob): Promise<BlobRef> {
    const from = this.stagedPath(staged.uploadId);
    const onDisk = await stat(from);
    if (onDisk.size !== staged.size) throw new Error(`staged upload ${staged.uploadId} changed size on disk`);
    const target = this.blobPath(staged.sha256);
    await privateDir(join(this.blobsDir, staged.sha256.slice(0, 2))).catch(rethrowFull);
    if (await this.stat(staged.sha256)) {
      // Same content already stored: keep one copy, and mark it fresh so a concurrent garbage
      // collection (which spares recent blobs) does not take it before the caller references it.
      const now = new Date();
      await utimes(target, now, now);
      await unlink(from);
    } else {
      await rename(from, target);
      await fsyncPath(join(this.blobsDir, staged.sha256.slice(0, 2)));
    }
    await this.discard(staged.uploadId);
    return { sha256: staged.sha256, size: staged.size };
  }

  async discard(uploadId: string): Promise<void> {
    await rm(join(this.uploadsDir, checkedUploadId(uploadId)), { recursive: true, force: true });
  }

  async stat(sha256: string): Promise<BlobRef | null> {
    try {
      const s = await stat(this.blobPath(sha256));
      return { sha256, size: s.size };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async reuse(sha256: string): Promise<BlobRef | null> {
    const now = new Date();
    try {
      await utimes(this.blobPath(sha256), now, now);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    return this.stat(sha256);
  }

  read(sha256: string, range?: ByteRange): Readable {
    // 1 MiB reads: Node's 64 KiB default costs 2-3x the throughput here (measured with `npm run bench -- transfers`).
    return createReadStream(this.blobPath(sha256), {
      highWaterMark: READ_CHUNK,
      ...(range ? { start: range.start, end: range.end } : {}),
    });
  }

  async send(sha256: string, range: ByteRange, out: Writable): Promise<void> {
    const file = await open(this.blobPath(sha256), 'r');
    try {
      await sendRange(file, range, out, this.sendBuffers);
    } finally {
      await file.close();
    }
  }

  async remove(sha256: string, opts: { untouchedSince?: Date } = {}): Promise<boolean> {
    const path = this.blobPath(sha256);
    if (opts.untouchedSince) {
      const s = await stat(path).catch(() => null);
      if (s && s.mtime > opts.untouchedSince) return false;
    }
    await rm(path, { force: true });
    return true;
  }

  async *list(): AsyncIterable<{ sha256: string; modifiedAt: Date }> {
    for (const fan of await readdirOrEmpty(this.blobsDir)) {
      for (const name of await readdirOrEmpty(join(this.blobsDir, fan))) {
        if (!isSha256(name) || name.slice(0, 2) !== fan) continue;
        const s = await stat(join(this.blobsDir, fan, name)).catch(() => null);
        if (s) yield { sha256: name, modifiedAt: s.mtime };
      }
    }
  }

  async *listStaged(): AsyncIterable<{ uploadId: string; modifiedAt: Date }> {
    for (const name of await readdirOrEmpty(this.uploadsDir)) {
      if (!UPLOAD_ID.test(name)) continue;
      const dir = join(this.uploadsDir, name);
      const s = (await stat(join(dir, 'data')).catch(() => null)) ?? (await stat(dir).catch(() => null));
      if (s) yield { uploadId: name, modifiedAt: s.mtime };
    }
  }
}

/** ENOSPC and EDQUOT become the 507 clients act on; other errors pass unchanged. */
function rethrowFull(err: unknown): never {
  throw diskFullError(err) ?? err;
}

async function readdirOrEmpty(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}
