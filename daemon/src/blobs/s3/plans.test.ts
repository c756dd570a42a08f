import { describe, expect, it } from 'vitest';
import { InsufficientStorageError } from '../../lib/errors';
import { planCopy, S3_COPY_LIMITS } from './copy';
import { MAX_PARTS, memoryFor, planParts } from './multipart-write';
import { MAX_OBJECT_BYTES, S3BlobStore } from './s3-blob-store';
import { s3ClientFor } from './bucket';
import { parseS3Location } from './location';

const MiB = 1024 ** 2;
const GiB = 1024 ** 3;
const TiB = 1024 ** 4;

describe('planCopy: how commit copies a staged object', () => {
  it('copies up to 5 GiB in one CopyObject', () => {
    expect(planCopy(0)).toEqual({ kind: 'single' });
    expect(planCopy(5 * GiB)).toEqual({ kind: 'single' });
  });

  it.each([5 * GiB + 1, 6 * GiB, 100 * GiB + 7, MAX_OBJECT_BYTES])(
    'copies %d bytes part by part (UploadPartCopy), covering every byte once',
    (size) => {
      const plan = planCopy(size);
      if (plan.kind !== 'multipart') throw new Error('expected a multipart copy');
      expect(plan.parts.length).toBeLessThanOrEqual(10_000);
      expect(plan.parts[0].start).toBe(0);
      expect(plan.parts[plan.parts.length - 1].end).toBe(size - 1);
      plan.parts.forEach((p, i) => {
        if (i > 0) expect(p.start).toBe(plan.parts[i - 1].end + 1);
        const length = p.end - p.start + 1;
        expect(length).toBeLessThanOrEqual(5 * GiB);
        if (i < plan.parts.length - 1) expect(length).toBeGreaterThanOrEqual(S3_COPY_LIMITS.minPart);
      });
    },
  );

  it('uses 512 MiB parts for a 6 GiB box', () => {
    const plan = planCopy(6 * GiB);
    expect(plan.kind === 'multipart' && plan.parts.length).toBe(12);
  });
});

describe('planParts: the multipart upload of a body', () => {
  it.each([
    [undefined, 16 * MiB, 2],
    [0, 8 * MiB, 4],
    [3 * GiB, 8 * MiB, 4],
    [100 * GiB, 11 * MiB, 2],
    [MAX_OBJECT_BYTES, 525 * MiB, 1],
  ])('a body of %s bytes goes in parts of %d, %d at a time', (size, partSize, queueSize) => {
    expect(planParts(size)).toEqual({ partSize, queueSize });
  });

  it('never needs more than 10,000 parts nor holds more than 4 parts of 8 MiB (or one larger part) in flight', () => {
    for (const size of [1, 8 * MiB, 80 * GiB, 81 * GiB, TiB, MAX_OBJECT_BYTES]) {
      const { partSize, queueSize } = planParts(size);
      expect(Math.ceil(size / partSize)).toBeLessThanOrEqual(MAX_PARTS);
      expect(partSize).toBeGreaterThanOrEqual(8 * MiB);
      expect(partSize * queueSize).toBeLessThanOrEqual(Math.max(32 * MiB, partSize));
    }
  });
});

describe("memoryFor: what an upload takes from the store's memory budget", () => {
  it.each([
    [undefined, 48 * MiB],
    [0, 0],
    [MiB, MiB],
    [9 * MiB, 9 * MiB],
    [3 * GiB, 40 * MiB],
    [100 * GiB, 33 * MiB],
    [MAX_OBJECT_BYTES, 1050 * MiB],
  ])('a body of %s bytes: %d (the parts sent and the one filling, or the body when smaller)', (size, bytes) => {
    expect(memoryFor(size)).toBe(bytes);
  });
});

describe('S3BlobStore without a network', () => {
  const loc = parseS3Location('s3://boxes/p?endpoint=http://127.0.0.1:9');
  const store = new S3BlobStore(s3ClientFor(loc), loc);

  it("has room for anything up to S3's 5 TiB object limit, and refuses more with a 507", async () => {
    await store.ensureRoom(MAX_OBJECT_BYTES);
    await expect(store.ensureRoom(MAX_OBJECT_BYTES + 1)).rejects.toBeInstanceOf(InsufficientStorageError);
    await expect(store.ensureRoom(MAX_OBJECT_BYTES + 1)).rejects.toThrow(
      'larger than the 5.0 TiB an S3 object can hold',
    );
  });

  it('cannot append: nothing is ever staged partly, and a resume past 0 is refused', async () => {
    expect(await store.stagedSize('any')).toBe(0);
    const { Readable } = await import('node:stream');
    await expect(store.append('any', Readable.from(['x']), { offset: 3 })).rejects.toThrow('S3 has no append');
  });
});
