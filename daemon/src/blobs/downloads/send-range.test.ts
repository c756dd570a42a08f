import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { BufferPool } from './buffer-pool';
import { isClientGone, sendRange } from './send-range';

const dir = mkdtempSync(join(tmpdir(), 'boxyard-send-range-'));
const bytes = Buffer.from(Array.from({ length: 10_000 }, (_, i) => i % 251));
const file = join(dir, 'blob');
writeFileSync(file, bytes);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A slow sink that keeps copies of what it was given, as a socket would send them later. */
function sink() {
  const got: Buffer[] = [];
  /** The memory each write was given (a buffer's backing store). */
  const used = new Set<ArrayBufferLike>();
  const out = new Writable({
    highWaterMark: 16,
    write(chunk: Buffer, _enc, cb) {
      got.push(Buffer.from(chunk));
      used.add(chunk.buffer);
      setTimeout(cb, 1);
    },
  });
  return { out, got, used };
}

describe('sendRange', () => {
  it('writes exactly the range through two reused buffers, then ends', async () => {
    const fh = await open(file, 'r');
    const { out, got } = sink();
    await sendRange(fh, { start: 123, end: 9_876 }, out, new BufferPool(1000, 2));
    await fh.close();
    expect(out.writableEnded).toBe(true);
    expect(Buffer.concat(got).equals(bytes.subarray(123, 9_877))).toBe(true);
    expect(got.length).toBe(10);
  });

  it('gives its buffers back for the next download once every write completed, and not after a failure', async () => {
    const fh = await open(file, 'r');
    const pool = new BufferPool(1000, 2);
    const { out, used } = sink();
    await sendRange(fh, { start: 0, end: 9_999 }, out, pool);
    const back = [pool.take(), pool.take()];
    expect(back.map((b) => used.has(b.buffer))).toEqual([true, true]);

    const gone = sink();
    gone.out.destroy();
    for (const b of back) pool.give(b);
    await expect(sendRange(fh, { start: 0, end: 9_999 }, gone.out, pool)).rejects.toThrow();
    expect(back).not.toContain(pool.take());
    await fh.close();
  });

  it('rejects when the client goes away, and when the file is shorter than the range', async () => {
    const fh = await open(file, 'r');
    const { out } = sink();
    out.destroy();
    await expect(sendRange(fh, { start: 0, end: 9_999 }, out, new BufferPool(1000, 2))).rejects.toThrow();
    await expect(sendRange(fh, { start: 0, end: 20_000 }, sink().out, new BufferPool(4096, 2))).rejects.toThrow(
      /ended at byte 10000/,
    );
    await fh.close();
  });

  it('rejects, leaving no rejection unhandled, when the client goes away during the last read', async () => {
    const { out } = sink();
    // Closed while the file is read, so the write after it fails once the wait for the writes began.
    const fh = {
      read: async (buffer: Buffer) => {
        out.destroy();
        await new Promise((r) => setImmediate(r));
        return { bytesRead: 1000, buffer };
      },
    };
    const err = await sendRange(fh as unknown as FileHandle, { start: 0, end: 999 }, out, new BufferPool(1000, 2)).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isClientGone(err, new Writable())).toBe(true);
    // A rejection nobody handled would be reported after this tick.
    await new Promise((r) => setTimeout(r, 20));
  });

  it('rejects when the response closes under a write whose callback never comes (a reset socket)', async () => {
    const fh = await open(file, 'r');
    // As Node's HTTP response does for a write to a socket destroyed a moment before: the callback is dropped.
    const out = new Writable();
    let writes = 0;
    // Closed once both buffers are out, while the first write's callback is awaited.
    out.write = (() => {
      if (++writes === 2) setImmediate(() => out.destroy());
      return true;
    }) as typeof out.write;
    const sending = sendRange(fh, { start: 0, end: 9_999 }, out, new BufferPool(1000, 2));
    const err = await sending.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).not.toBeNull();
    expect(isClientGone(err, new Writable())).toBe(true);
    await fh.close();
  });
});
