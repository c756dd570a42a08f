import type { FileHandle } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream';
import type { ByteRange } from '../blob-store';
import type { BufferPool } from './buffer-pool';

/** The response was closed under the download: the client went away (normal, not a failure). */
export class ClientGoneError extends Error {
  readonly code = 'ERR_CLIENT_GONE';
  constructor() {
    super('the client went away');
  }
}

/** Write errors of a connection the client closed or reset. */
const GONE_CODES = new Set([
  'ERR_CLIENT_GONE',
  'ECONNRESET',
  'EPIPE',
  'ERR_STREAM_DESTROYED',
  'ERR_STREAM_WRITE_AFTER_END',
  'ERR_STREAM_PREMATURE_CLOSE',
]);

/** Whether a download failed because its client went away rather than for a reason of ours. */
export function isClientGone(err: unknown, out: Writable): boolean {
  return out.destroyed || GONE_CODES.has((err as NodeJS.ErrnoException | undefined)?.code ?? '');
}

/**
 * Writes bytes `range` of an open file to `out` (an HTTP response) through two buffers from
 * `pool` used over and over: a buffer is read into again only once its last write has completed
 * (the write callback), so nothing is copied and nothing is left for the garbage collector. A read
 * stream makes a new 1 MiB buffer per read, and V8 frees those only after some 64 MiB of them:
 * eight parallel downloads lifted the daemon's memory by 80 MiB that way (bench/'s `transfers`). The buffers go
 * back to the pool once every write has completed. Resolves once the response has ended; rejects
 * when the file or the connection fails (the caller destroys it).
 *
 * Every wait is also a wait for the response to close: Node's HTTP response drops the callback
 * of a write made after its socket was destroyed but before the response heard of it (a client
 * that resets at that moment), and a wait for that callback alone would never end.
 */
export async function sendRange(file: FileHandle, range: ByteRange, out: Writable, pool: BufferPool): Promise<void> {
  // One listener for the response's end, not a reaction per wait: reactions to a promise pending
  // for the whole download (two per MiB) outlived young-generation GCs and lifted the heap by
  // 40 MiB over the benchmark's rounds of eight downloads (bench/'s `transfers`).
  let ended: Error | undefined;
  let stopWait: ((err: Error) => void) | undefined;
  const unlisten = finished(out, (err) => {
    ended = err ?? new ClientGoneError();
    stopWait?.(ended);
  });
  // Always subscribed to `p` as well: a write that fails after the response closed must not
  // leave a rejection unhandled (Node stops the process for one).
  const orClosed = <T>(p: Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (ended) reject(ended);
      else stopWait = reject;
      p.then(resolve, reject);
    });
  const chunk = pool.size;
  const buffers = [pool.take(), pool.take()];
  const writing: Array<Promise<void>> = [Promise.resolve(), Promise.resolve()];
  try {
    let pos = range.start;
    for (let i = 0; pos <= range.end; i ^= 1) {
      await orClosed(writing[i]);
      if (out.destroyed) throw new ClientGoneError();
      const { bytesRead } = await file.read(buffers[i], 0, Math.min(chunk, range.end - pos + 1), pos);
      if (bytesRead === 0) throw new Error(`the file ended at byte ${pos}, before byte ${range.end}`);
      pos += bytesRead;
      const done = new Promise<void>((resolve, reject) => {
        out.write(buffers[i].subarray(0, bytesRead), (err) => (err ? reject(err) : resolve()));
      });
      // Awaited in turn below; marked handled now, in case it fails while the other one is awaited.
      done.catch(() => undefined);
      writing[i] = done;
    }
    await orClosed(Promise.all(writing));
  } finally {
    unlisten();
  }
  for (const b of buffers) pool.give(b);
  await new Promise<void>((resolve, reject) => {
    out.end(resolve);
    // Ended, or closed first: finished() settles either way.
    finished(out, (err) => (err ? reject(err) : resolve()));
  });
}
