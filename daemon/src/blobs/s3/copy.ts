import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  UploadPartCopyCommand,
  type CompletedPart,
} from '@aws-sdk/client-s3';
import type { ByteRange } from '../blob-store';
import { copySource, type Bucket } from './bucket';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

export interface CopyLimits {
  /** Largest object one CopyObject may copy (S3: 5 GiB); larger ones are copied part by part. */
  singleMax: number;
  /** Smallest part of a multipart copy (S3 allows 5 MiB to 5 GiB per part, 10,000 parts). */
  minPart: number;
}

/** S3's limits; 512 MiB parts copy a 6 GiB box in 12 server-side requests. */
export const S3_COPY_LIMITS: CopyLimits = { singleMax: 5 * GiB, minPart: 512 * MiB };
const MAX_PARTS = 10_000;
/** Part copies in flight at once: each is server-side work, nothing passes through the daemon. */
const COPY_CONCURRENCY = 4;

export type CopyPlan = { kind: 'single' } | { kind: 'multipart'; parts: ByteRange[] };

/**
 * How an object of `size` bytes is copied: one CopyObject up to `singleMax`, else parts of at least `minPart` (≤ 10,000
 * of them).
 */
export function planCopy(size: number, limits: CopyLimits = S3_COPY_LIMITS): CopyPlan {
  if (size <= limits.singleMax) return { kind: 'single' };
  const partSize = Math.max(limits.minPart, Math.ceil(size / MAX_PARTS));
  const parts: ByteRange[] = [];
  for (let start = 0; start < size; start += partSize) parts.push({ start, end: Math.min(start + partSize, size) - 1 });
  return { kind: 'multipart', parts };
}

/**
 * Copies object `from` to `to` inside the bucket (`from === to`: onto itself, which gives it a new
 * LastModified). Every copy writes a new object, so its LastModified is the copy's time: what
 * garbage collection reads as "touched". A failed multipart copy is aborted (no parts left).
 */
export async function copyObject(
  b: Bucket,
  from: string,
  to: string,
  size: number,
  limits: CopyLimits = S3_COPY_LIMITS,
): Promise<void> {
  const plan = planCopy(size, limits);
  if (plan.kind === 'single') {
    // Onto itself, S3 requires something to change: REPLACE metadata (with the same content type).
    await b.call('CopyObject', to, () =>
      b.client.send(
        new CopyObjectCommand({
          Bucket: b.loc.bucket,
          Key: to,
          CopySource: copySource(b.loc, from),
          MetadataDirective: 'REPLACE',
          ContentType: 'application/octet-stream',
        }),
      ),
    );
    return;
  }
  await copyInParts(b, from, to, plan.parts);
}

async function copyInParts(b: Bucket, from: string, to: string, ranges: ByteRange[]): Promise<void> {
  const uploadId = await b.call('CreateMultipartUpload', to, async () => {
    const created = await b.client.send(
      new CreateMultipartUploadCommand({
        Bucket: b.loc.bucket,
        Key: to,
        ContentType: 'application/octet-stream',
      }),
    );
    if (!created.UploadId) throw new Error('the answer names no UploadId');
    return created.UploadId;
  });
  try {
    const parts: CompletedPart[] = new Array(ranges.length);
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < ranges.length; i = next++) {
        const r = ranges[i];
        const res = await b.call('UploadPartCopy', to, () =>
          b.client.send(
            new UploadPartCopyCommand({
              Bucket: b.loc.bucket,
              Key: to,
              UploadId: uploadId,
              PartNumber: i + 1,
              CopySource: copySource(b.loc, from),
              CopySourceRange: `bytes=${r.start}-${r.end}`,
            }),
          ),
        );
        parts[i] = { PartNumber: i + 1, ETag: res.CopyPartResult?.ETag };
      }
    };
    await Promise.all(Array.from({ length: Math.min(COPY_CONCURRENCY, ranges.length) }, worker));
    await b.call('CompleteMultipartUpload', to, () =>
      b.client.send(
        new CompleteMultipartUploadCommand({
          Bucket: b.loc.bucket,
          Key: to,
          UploadId: uploadId,
          MultipartUpload: { Parts: parts },
        }),
      ),
    );
  } catch (err) {
    // The copy's own error is what the caller needs; an abort that fails too leaves the parts to the sweeper.
    await b.client
      .send(new AbortMultipartUploadCommand({ Bucket: b.loc.bucket, Key: to, UploadId: uploadId }))
      .catch(() => undefined);
    throw err;
  }
}
