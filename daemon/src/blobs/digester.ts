import { createHash } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import type { DigestAlgorithm } from './blob-store';

/** Computes the digests of a stream of bytes. `update` may wait: that is its backpressure. */
export interface Digester {
  update(chunk: Buffer): void | Promise<void>;
  /** Lower-case hex per algorithm; the digester is finished afterwards. */
  digest(): Promise<Record<string, string>>;
  /** Frees it without a result (a failed write). */
  destroy(): void;
}

/** Hashes on the calling thread: for small bodies, where a worker's start costs more than it saves. */
class InlineDigester implements Digester {
  private readonly hashes;
  constructor(private readonly algorithms: DigestAlgorithm[]) {
    this.hashes = algorithms.map((a) => createHash(a));
  }
  update(chunk: Buffer): void {
    for (const h of this.hashes) h.update(chunk);
  }
  async digest(): Promise<Record<string, string>> {
    return Object.fromEntries(this.algorithms.map((a, i) => [a, this.hashes[i].digest('hex')]));
  }
  destroy(): void {}
}

// CommonJS, run with `eval`: the bundle needs no separate worker file. Messages name a region of
// the shared ring ([offset, length]); the worker hashes it in place and acknowledges its length.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const ring = new Uint8Array(workerData.ring);
const hashes = workerData.algorithms.map((a) => createHash(a));
parentPort.on('message', (m) => {
  if (m === 'digest') return parentPort.postMessage({ digests: hashes.map((h) => h.digest('hex')) });
  for (const h of hashes) h.update(ring.subarray(m[0], m[0] + m[1]));
  parentPort.postMessage({ ack: m[1] });
});`;

/**
 * The shared ring the bytes pass through: a fixed amount of memory whatever the body's size. 1 MiB
 * (sixteen socket reads) keeps the worker busy; 4 MiB only added resident memory.
 */
const RING_BYTES = 1024 * 1024;
/**
 * The bytes handed to the worker in one message (a message per 64 KiB socket read woke the worker,
 * and its answer the receiving thread, 32,768 times per GiB).
 */
const BATCH_BYTES = RING_BYTES / 4;

/**
 * Hashes on a worker thread, so the thread that receives and writes the bytes only copies them
 * into a shared ring (hashing runs beside the I/O: docs/ARCHITECTURE.md, "An upload's way"). Memory is fixed: `update`
 * waits while the ring is full. (Handing the worker a fresh buffer per chunk cost ~70 MiB of RSS.)
 */
class WorkerDigester implements Digester {
  private readonly worker: Worker;
  private readonly ring = new SharedArrayBuffer(RING_BYTES);
  private readonly bytes = new Uint8Array(this.ring);
  private head = 0;
  /** Bytes at the worker, and bytes in the ring not handed over yet (they end at `head`). */
  private inFlight = 0;
  private unsent = 0;
  private room: { need: number; wake: () => void } | null = null;
  private result: ((d: Record<string, string>) => void) | null = null;
  private failure: Error | null = null;

  constructor(private readonly algorithms: DigestAlgorithm[]) {
    // A small heap: the worker holds only hash states; the bytes stay in the shared ring.
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { algorithms, ring: this.ring },
      resourceLimits: { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 8 },
    });
    this.worker.on('message', ({ ack, digests }: { ack?: number; digests?: string[] }) => {
      if (digests) this.result?.(Object.fromEntries(this.algorithms.map((a, i) => [a, digests[i]])));
      if (ack === undefined) return;
      this.inFlight -= ack;
      if (this.room && this.inFlight + this.unsent + this.room.need <= RING_BYTES) this.release();
    });
    this.worker.on('error', (err) => {
      this.failure = err;
      this.release();
    });
  }

  private release() {
    const r = this.room;
    this.room = null;
    r?.wake();
  }

  async update(chunk: Buffer): Promise<void> {
    for (let at = 0; at < chunk.length; ) {
      if (this.failure) throw this.failure;
      const n = Math.min(chunk.length - at, RING_BYTES / 2);
      if (this.inFlight + this.unsent + n > RING_BYTES) {
        // The ring is full: what is not handed over yet goes now, or no room would ever come back.
        this.send();
        await new Promise<void>((wake) => {
          this.room = { need: n, wake };
        });
      }
      if (this.failure) throw this.failure;
      // Written at the head, in two pieces where it wraps around the end of the ring.
      for (let left = n; left > 0; ) {
        const piece = Math.min(left, RING_BYTES - this.head);
        this.bytes.set(chunk.subarray(at, at + piece), this.head);
        this.unsent += piece;
        this.head = (this.head + piece) % RING_BYTES;
        at += piece;
        left -= piece;
        if (this.unsent >= BATCH_BYTES || this.head === 0) this.send();
      }
    }
  }

  /** Hands the bytes written since the last message to the worker, in one message. */
  private send() {
    if (this.unsent === 0) return;
    const start = (this.head - this.unsent + RING_BYTES) % RING_BYTES;
    this.worker.postMessage([start, this.unsent]);
    this.inFlight += this.unsent;
    this.unsent = 0;
  }

  async digest(): Promise<Record<string, string>> {
    if (this.failure) throw this.failure;
    this.send();
    const done = new Promise<Record<string, string>>((resolve, reject) => {
      this.result = resolve;
      this.worker.once('error', reject);
    });
    this.worker.postMessage('digest');
    try {
      return await done;
    } finally {
      void this.worker.terminate();
    }
  }

  destroy(): void {
    void this.worker.terminate();
  }
}

/** Bodies smaller than this are hashed inline. */
const WORKER_THRESHOLD = 8 * 1024 * 1024;

/** A digester for a body of `expectedSize` bytes (unknown: a worker). */
export function digesterFor(algorithms: DigestAlgorithm[], expectedSize?: number): Digester {
  return expectedSize !== undefined && expectedSize < WORKER_THRESHOLD
    ? new InlineDigester(algorithms)
    : new WorkerDigester(algorithms);
}
