import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { isClientGone, sendRange } from './send-range';

const dir = mkdtempSync(join(tmpdir(), 'boxyard-send-range-'));
const bytes = Buffer.from(Array.from({ length: 10_000 }, (_, i) => i % 251));
const file = join(dir, 'blob');
writeFileSync(file, bytes);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A slow sink that keeps copies of what it was given, as a socket would send them later. */
function sink() {
  const got: Buffer[] = [];
  const out = new Writable({
    highWaterMark: 16,
    write(chunk: Buffer, _enc, cb) { got.push(Buffer.from(chunk)); setTimeout(cb, 1); },
  });
  return { out, got };
}

describe('sendRange', () => {
  it('writes exactly the range through two reused buffers, then ends', async () => {
    const fh = await open(file, 'r');
    const { out, got } = sink();
    await sendRange(fh, { start: 123, end: 9_876 }, out, 1000);
    await fh.close();
    expect(out.writableEnded).toBe(true);
    expect(Buffer.concat(got).equals(bytes.subarray(123, 9_877))).toBe(true);
    expect(got.length).toBe(10);
  });

  it('rejects when the client goes away, and when the file is shorter than the range', async () => {
    const fh = await open(file, 'r');
    const { out } = sink();
    out.destroy();
    await expect(sendRange(fh, { start: 0, end: 9_999 }, out, 1000)).rejects.toThrow();
    await expect(sendRange(fh, { start: 0, end: 20_000 }, sink().out, 4096)).rejects.toThrow(/ended at byte 10000/);
    await fh.close();
  });

  it('rejects when the response closes under a write whose callback never comes (a reset socket)', async () => {
    const fh = await open(file, 'r');
    // As Node's HTTP response does for a write to a socket destroyed a moment before: the callback is dropped.
    const out = new Writable();
    let writes = 0;
    // Closed once both buffers are out, while the first write's callback is awaited.
    out.write = (() => { if (++writes === 2) setImmediate(() => out.destroy()); return true; }) as typeof out.write;
    const sending = sendRange(fh, { start: 0, end: 9_999 }, out, 1000);
    const err = await sending.then(() => null, (e: unknown) => e);
    expect(err).not.toBeNull();
    expect(isClientGone(err, new Writable())).toBe(true);
    await fh.close();
  });
});
