import { finished, Readable, Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  paginateListObjectsV2,
  type S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { InsufficientStorageError } from '../../lib/errors';
import {
  checkedSha,
  isSha256,
  UPLOAD_ID,
  type BlobRef,
  type BlobStore,
  type ByteRange,
  type DigestAlgorithm,
  type StagedBlob,
  type WriteOptions,
} from '../blob-store';
import { humanBytes } from '../../contract/bytes';
import { digesterFor, type Digester } from '../digester';
import { bucketOf, blobKey, blobsPrefix, presignClientFor, stagingKey, stagingPrefix, type Bucket } from './bucket';
import { copyObject, S3_COPY_LIMITS, type CopyLimits } from './copy';
import type { S3Location } from './location';
import { MemoryBudget, type Release } from './memory-budget';
import { memoryFor, streamToKey } from './multipart-write';
import { abortUpload, openUploads } from './open-uploads';
import { isMissing, isUnsupported, missingBlob, storeFailure } from './s3-errors';

/** S3's largest object. */
export const MAX_OBJECT_BYTES = 5 * 1024 ** 4;
/** How long a presigned download URL is valid. */
const DOWNLOAD_URL_SECONDS = 5 * 60;
const READ_CHUNK = 1024 * 1024;
/** Upload parts all writes together may hold in memory: about six uploads' worth of 8 MiB parts. */
export const UPLOAD_MEMORY_BYTES = 256 * 1024 * 1024;

export interface S3BlobStoreOptions {
  /** When a copy goes part by part (tests lower it to copy a few MiB that way). */
  copyLimits?: CopyLimits;
  /** Bytes of upload parts all concurrent writes may buffer together (UPLOAD_MEMORY_BYTES; tests lower it). */
  uploadMemoryBytes?: number;
}

/** `attachment; filename="…"` with an ASCII fallback and the UTF-8 name (RFC 6266). */
function attachment(filename: string): string {
  const ascii = filename.replace(/[^A-Za-z0-9._-]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

/**
 * The blob store on an S3-compatible bucket, through the AWS SDK: the file store's
 * contract, keys laid out as its files (bucket.ts). Nothing is kept in the daemon's memory, so
 * several daemons share one bucket.
 */
export class S3BlobStore implements BlobStore {
  private readonly b: Bucket;
  private readonly copyLimits: CopyLimits;
  /** Signs download URLs: the client itself, or one for the location's public endpoint. */
  private readonly presigner: S3Client;
  /**
   * What the writes in flight buffer: each upload holds up to (queueSize + 1) parts of 8 MiB or
   * more (multipart-write.ts), so without a cap 20 concurrent uploads hold some 800 MiB.
   */
  readonly uploadMemory: MemoryBudget;

  constructor(
    client: S3Client,
    readonly location: S3Location,
    opts: S3BlobStoreOptions = {},
  ) {
    this.b = bucketOf(client, location);
    this.copyLimits = opts.copyLimits ?? S3_COPY_LIMITS;
    this.presigner = presignClientFor(client, location);
    this.uploadMemory = new MemoryBudget(opts.uploadMemoryBytes ?? UPLOAD_MEMORY_BYTES);
  }

  /** No local disk holds the bytes: only S3's object size limit refuses. */
  async ensureRoom(bytes: number): Promise<void> {
    if (bytes <= MAX_OBJECT_BYTES) return;
    throw new InsufficientStorageError(
      `A file of ${humanBytes(bytes)} is larger than the ${humanBytes(MAX_OBJECT_BYTES)} an S3 object can hold. Nothing was stored.`,
    );
  }

  /**
   * Waits for room in the upload memory budget before reading anything of `body` (its client
   * meanwhile sees TCP back-pressure), and gives the room back once the parts are sent or the
   * write fails.
   */
  async write(uploadId: string, body: Readable, opts: WriteOptions = {}): Promise<StagedBlob> {
    const key = stagingKey(this.location, uploadId);
    const algorithms = [...new Set<DigestAlgorithm>(['sha256', ...(opts.algorithms ?? [])])];
    const release = await this.roomFor(body, memoryFor(opts.expectedSize));
    let digester: Digester | undefined;
    try {
      digester = digesterFor(algorithms, opts.expectedSize);
      const size = await streamToKey(this.b, key, body, {
        digester,
        expectedSize: opts.expectedSize,
        highWaterMark: READ_CHUNK,
        written: opts.written,
      });
      release();
      const digests = await digester.digest();
      return { uploadId, size, sha256: digests.sha256, digests };
    } finally {
      release();
      digester?.destroy();
    }
  }

  /**
   * A share of the upload memory budget. A body that fails or closes while it waits (its client
   * gone, a newer PUT taking the URL over) gives up its place and rejects with the body's error.
   * The body stays watched until the share is released, so that an error between the grant and
   * the write's own listeners is still heard.
   */
  private async roomFor(body: Readable, bytes: number): Promise<Release> {
    const gone = new AbortController();
    const stop = finished(body, { writable: false }, (err) => {
      if (err) gone.abort(err);
    });
    try {
      const release = await this.uploadMemory.acquire(bytes, gone.signal);
      return () => {
        stop();
        release();
      };
    } catch (err) {
      stop();
      throw err;
    }
  }

  /**
   * S3 cannot append to an object, and a multipart upload shows nothing until it is completed:
   * a staging object is always whole. So `stagedSize` answers 0 and a resume starts the file over
   * (a mirror job fetches the whole file again after a restart); only offset 0 is accepted.
   */
  async append(uploadId: string, body: Readable, opts: WriteOptions & { offset: number }): Promise<StagedBlob> {
    if (opts.offset !== 0)
      throw new Error(
        `the S3 blob store cannot resume upload ${uploadId} at byte ${opts.offset}: S3 has no append; start it over at 0`,
      );
    return this.write(uploadId, body, opts);
  }

  async stagedSize(_uploadId: string): Promise<number> {
    return 0;
  }

  /**
   * Copies the staging object to its content key, then deletes it. Always copying (even when the
   * content is stored already) gives the blob a new LastModified, which garbage collection reads
   * as "touched": a re-commit marks it fresh, as the file store's does.
   */
  async commit(staged: StagedBlob): Promise<BlobRef> {
    checkedSha(staged.sha256);
    const from = stagingKey(this.location, staged.uploadId);
    const head = await this.head(from);
    if (!head) throw new Error(`staged upload ${staged.uploadId} is missing from the bucket`);
    if (head.size !== staged.size) throw new Error(`staged upload ${staged.uploadId} changed size in the bucket`);
    await copyObject(this.b, from, blobKey(this.location, staged.sha256), staged.size, this.copyLimits);
    await this.deleteKey(from);
    return { sha256: staged.sha256, size: staged.size };
  }

  /** Deletes the staging object and aborts any multipart upload still open on its key. */
  async discard(uploadId: string): Promise<void> {
    const key = stagingKey(this.location, uploadId);
    await this.deleteKey(key);
    try {
      for (const u of await openUploads(this.b, key)) if (u.Key === key) await abortUpload(this.b, u);
    } catch (err) {
      // s3rver 3.7.1 (the tests' server) has no ListMultipartUploads: nothing to abort is known
      // there, and the sweeper (which reports this) is what cleans up after a crash anyway.
      if (!isUnsupported(err)) throw err;
    }
  }

  async stat(sha256: string): Promise<BlobRef | null> {
    const head = await this.head(blobKey(this.location, sha256));
    return head ? { sha256, size: head.size } : null;
  }

  /** Marked fresh by a copy onto itself (see commit); null when missing. */
  async reuse(sha256: string): Promise<BlobRef | null> {
    const ref = await this.stat(sha256);
    if (!ref) return null;
    const key = blobKey(this.location, sha256);
    try {
      await copyObject(this.b, key, key, ref.size, this.copyLimits);
    } catch (err) {
      // Removed between the stat and the copy.
      if (isMissing(err)) return null;
      throw err;
    }
    return ref;
  }

  read(sha256: string, range?: ByteRange): Readable {
    const key = blobKey(this.location, sha256);
    const open = () => this.open(key, range);
    async function* bytes() {
      const body = await open();
      try {
        for await (const chunk of body) yield chunk as Buffer;
      } finally {
        body.destroy();
      }
    }
    return Readable.from(bytes(), { objectMode: false, highWaterMark: READ_CHUNK });
  }

  /**
   * Pipes the object's bytes (or a range) to `out` with backpressure and ends it. Rejects when the
   * blob is missing (ENOENT, before anything is written), or when S3's body ends short of the
   * range (then `out` is destroyed: a client must not take a short body for a whole one).
   */
  async send(sha256: string, range: ByteRange, out: Writable): Promise<void> {
    const key = blobKey(this.location, sha256);
    const body = await this.open(key, range);
    const expected = range.end - range.start + 1;
    let seen = 0;
    const count = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        seen += chunk.length;
        cb(null, chunk);
      },
      flush(cb) {
        cb(seen === expected ? null : new Error(`S3 sent ${seen} of the ${expected} bytes asked for`));
      },
    });
    // Which side broke first: a reset from S3 has the code of a client going away (ECONNRESET),
    // and must not be logged as one.
    let first: 'client' | 's3' | undefined;
    out.once('close', () => {
      first ??= 'client';
    });
    body.once('error', () => {
      first ??= 's3';
    });
    try {
      await pipeline(body, count, out);
    } catch (err) {
      throw first === 's3' ? storeFailure(this.location, 'GetObject', key, err) : err;
    }
  }

  async remove(sha256: string, opts: { untouchedSince?: Date } = {}): Promise<boolean> {
    const key = blobKey(this.location, sha256);
    if (opts.untouchedSince) {
      const head = await this.head(key);
      if (head?.modifiedAt && head.modifiedAt > opts.untouchedSince) return false;
    }
    await this.deleteKey(key);
    return true;
  }

  async *list(): AsyncIterable<{ sha256: string; modifiedAt: Date }> {
    const under = blobsPrefix(this.location);
    for await (const o of this.objects(under)) {
      const [fan, name, extra] = o.key.slice(under.length).split('/');
      if (extra !== undefined || !isSha256(name ?? '') || name.slice(0, 2) !== fan) continue;
      yield { sha256: name, modifiedAt: o.modifiedAt };
    }
  }

  async *listStaged(): AsyncIterable<{ uploadId: string; modifiedAt: Date }> {
    const under = stagingPrefix(this.location);
    for await (const o of this.objects(under)) {
      const name = o.key.slice(under.length);
      if (UPLOAD_ID.test(name)) yield { uploadId: name, modifiedAt: o.modifiedAt };
    }
  }

  /**
   * A presigned GET of the blob, valid 5 minutes, signed for the location's public endpoint when
   * it has one; `filename` becomes the download's Content-Disposition.
   */
  async downloadUrl(sha256: string, filename?: string): Promise<string> {
    const key = blobKey(this.location, sha256);
    const command = new GetObjectCommand({
      Bucket: this.location.bucket,
      Key: key,
      ...(filename ? { ResponseContentDisposition: attachment(filename) } : {}),
    });
    return this.b.call('presign GetObject', key, () =>
      getSignedUrl(this.presigner, command, { expiresIn: DOWNLOAD_URL_SECONDS }),
    );
  }

  /** Aborts every multipart upload under the prefix begun before `olderThan` (crash leftovers, failed aborts). */
  async sweepMultipart(olderThan: Date): Promise<number> {
    let aborted = 0;
    for (const u of await openUploads(this.b, this.location.prefix)) {
      if (u.Initiated && u.Initiated < olderThan) aborted += (await abortUpload(this.b, u)) ? 1 : 0;
    }
    return aborted;
  }

  private async head(key: string): Promise<{ size: number; modifiedAt?: Date } | null> {
    try {
      const h = await this.b.client.send(new HeadObjectCommand({ Bucket: this.location.bucket, Key: key }));
      return { size: h.ContentLength ?? 0, modifiedAt: h.LastModified };
    } catch (err) {
      if (isMissing(err)) return null;
      throw storeFailure(this.location, 'HeadObject', key, err);
    }
  }

  /** The object's body (or range of it); ENOENT when it is missing. */
  private async open(key: string, range?: ByteRange): Promise<Readable> {
    try {
      const res = await this.b.client.send(
        new GetObjectCommand({
          Bucket: this.location.bucket,
          Key: key,
          ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
        }),
      );
      return res.Body as Readable;
    } catch (err) {
      if (isMissing(err)) throw missingBlob(key);
      throw storeFailure(this.location, 'GetObject', key, err);
    }
  }

  /** Deleting a missing key succeeds (S3 answers 204 either way). */
  private async deleteKey(key: string): Promise<void> {
    await this.b.call('DeleteObject', key, () =>
      this.b.client.send(new DeleteObjectCommand({ Bucket: this.location.bucket, Key: key })),
    );
  }

  private async *objects(prefix: string): AsyncIterable<{ key: string; modifiedAt: Date }> {
    const pages = paginateListObjectsV2({ client: this.b.client }, { Bucket: this.location.bucket, Prefix: prefix });
    const it = pages[Symbol.asyncIterator]();
    for (;;) {
      const page = await this.b.call('ListObjectsV2', prefix, () => it.next());
      if (page.done) return;
      for (const o of page.value.Contents ?? [])
        if (o.Key && o.LastModified) yield { key: o.Key, modifiedAt: o.LastModified };
    }
  }
}
