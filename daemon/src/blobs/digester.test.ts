import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { digesterFor } from './digester';

const hex = (alg: string, chunks: Buffer[]) => {
  const h = createHash(alg);
  for (const c of chunks) h.update(c);
  return h.digest('hex');
};

describe('digesterFor', () => {
  const chunks = Array.from({ length: 80 }, () => randomBytes(512 * 1024));

  it.each([
    ['on a worker thread (unknown or large size)', undefined],
    ['inline (a small body)', 1024],
  ])('%s gives the same digests as node:crypto', async (_what, size) => {
    const d = digesterFor(['sha256', 'md5', 'sha512'], size);
    for (const c of chunks) await d.update(c);
    expect(await d.digest()).toEqual({
      sha256: hex('sha256', chunks),
      md5: hex('md5', chunks),
      sha512: hex('sha512', chunks),
    });
  });

  it('on a worker thread, gives the same digest for chunks of odd sizes that fill and wrap around its ring', async () => {
    // 64 KiB + 1 byte and other sizes: batches end mid-chunk, at the ring's end and when it is full.
    const odd = Array.from({ length: 60 }, (_, i) => randomBytes([65_537, 1, 300_001, 524_288][i % 4]));
    const d = digesterFor(['sha256']);
    for (const c of odd) await d.update(c);
    expect((await d.digest()).sha256).toBe(hex('sha256', odd));
  });

  it('hashes a chunk as it was handed over, even if the caller reuses its buffer', async () => {
    const d = digesterFor(['sha256']);
    const buf = Buffer.alloc(1024, 1);
    await d.update(buf);
    buf.fill(2);
    await d.update(buf);
    expect((await d.digest()).sha256).toBe(hex('sha256', [Buffer.alloc(1024, 1), Buffer.alloc(1024, 2)]));
  });
});
