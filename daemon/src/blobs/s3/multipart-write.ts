import { Transform, pipeline, type Readable } from 'node:stream';
import { Upload } from '@aws-sdk/lib-storage';
import { SizeMismatchError } from '../blob-store';
import { detachedBody } from '../detached-body';
import type { Digester } from '../digester';
import { hashingTap } from '../hashing-tap';
import type { Bucket } from './bucket';
import { storeFailure } from './s3-errors';

const MiB = 1024 * 1024;
/** S3's most parts in one multipart upload. */
export const MAX_PARTS = 10_000;
const MIN_PART = 8 * MiB;
/** Unknown size (a chunked body): 16 MiB parts reach 156 GiB, beyond any box seen. */
const UNKNOWN_SIZE_PART = 16 * MiB;
/** Parts held in memory while they are sent: with 8 MiB parts, four at once. */
const IN_FLIGHT_BUDGET = 32 * MiB;
const MAX_QUEUE = 4;

export interface PartPlan {
  partSize: number;
  /** Parts sent at once; memory holds about (queueSize + 1) parts whatever the body's size. */
  queueSize: number;
}

/** Parts for a body of `expectedSize` bytes: at least 8 MiB, few enough for S3's 10,000, whole MiB. */
export function planParts(expectedSize?: number): PartPlan {
  const wanted =
    expectedSize === undefined ? UNKNOWN_SIZE_PART : Math.max(MIN_PART, Math.ceil(expectedSize / MAX_PARTS));
  const partSize = Math.ceil(wanted / MiB) * MiB;
  return { partSize, queueSize: Math.max(1, Math.min(MAX_QUEUE, Math.floor(IN_FLIGHT_BUDGET / partSize))) };
}

/**
 * The most bytes the upload of a body of `expectedSize` bytes holds in memory: the parts being
 * sent and the one being filled ((queueSize + 1) parts), or the whole body when it is smaller.
 */
export function memoryFor(expectedSize?: number): number {
  const { partSize, queueSize } = planParts(expectedSize);
  const parts = (queueSize + 1) * partSize;
  return expectedSize === undefined ? parts : Math.min(parts, expectedSize);
}

/**
 * Fails the stream as soon as it runs past `expected` bytes, or ends short of it: the multipart
 * upload then sees a failed body and is aborted, instead of storing a wrong object.
 */
function sizeGuard(
  expected: number | undefined,
  counter: { bytes: number },
  written?: (bytes: number) => void,
): Transform {
  return new Transform({
    transform(chunk: Buffer, _enc, cb) {
      if (expected !== undefined && counter.bytes > expected) return cb(new SizeMismatchError(expected, counter.bytes));
      written?.(counter.bytes);
      cb(null, chunk);
    },
    flush(cb) {
      cb(expected !== undefined && counter.bytes !== expected ? new SizeMismatchError(expected, counter.bytes) : null);
    },
  });
}

export interface StreamOptions {
  digester: Digester;
  expectedSize?: number;
  /** Bytes read from `body` at a time (as the file store's 1 MiB). */
  highWaterMark: number;
  /** Told the bytes passed on to the upload so far (WriteOptions.written). */
  written?: (bytes: number) => void;
}

/**
 * Streams `body` into object `key` through a multipart upload (one PutObject when it fits in one
 * part), feeding every byte to the digester in the same pass; answers the byte count. On any
 * failure the multipart upload is aborted by lib-storage before this rejects, and the body's own
 * error (or the SizeMismatchError) is what it rejects with; the body itself is not destroyed.
 */
export async function streamToKey(b: Bucket, key: string, body: Readable, opts: StreamOptions): Promise<number> {
  const counter = { bytes: 0 };
  const input = detachedBody(body, opts.highWaterMark);
  const stages = [
    input.source,
    hashingTap(opts.digester, counter),
    sizeGuard(opts.expectedSize, counter, opts.written),
  ] as const;
  // The first error of the body's way (the body failing, the digester, the size check), heard
  // before the Upload's own reader hears it from the last stage.
  let bodyFailure: Error | undefined;
  for (const s of stages)
    s.on('error', (err) => {
      bodyFailure ??= err;
    });
  // pipeline() ends in the guard, which the Upload reads; an error anywhere destroys the guard
  // with it, which fails the Upload's read of the body. Its errors are heard above.
  const source = pipeline(...stages, () => undefined);
  const { partSize, queueSize } = planParts(opts.expectedSize);
  const upload = new Upload({
    client: b.client,
    params: { Bucket: b.loc.bucket, Key: key, Body: source, ContentType: 'application/octet-stream' },
    partSize,
    queueSize,
    leavePartsOnError: false,
  });
  try {
    await upload.done();
  } catch (err) {
    input.release();
    source.destroy();
    // lib-storage rejects with the abort's error when the abort fails (s3rver 3.7.1 answers every
    // AbortMultipartUpload 405): the body's failure is still the reason, and the sweeper gets the parts.
    throw bodyFailure ?? storeFailure(b.loc, 'upload', key, err);
  }
  return counter.bytes;
}
