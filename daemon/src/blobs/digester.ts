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

// CommonJS, run with `eval`: the bundle needs no separate worker file.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const hashes = workerData.algorithms.map((a) => createHash(a));
parentPort.on('message', (m) => {
  if (m === 'digest') return parentPort.postMessage({ digests: hashes.map((h) => h.digest('hex')) });
  for (const h of hashes) h.update(m);
  parentPort.postMessage({ ack: m.byteLength });
});`;

/** Bytes handed to the worker and not yet hashed before `update` waits. */
const IN_FLIGHT_LIMIT = 32 * 1024 * 1024;

/**
 * Hashes on a worker thread, so the thread that receives and writes the bytes only copies them
 * (DESIGN.md §3: hashing runs beside the I/O). Memory stays bounded: `update` waits while more
 * than IN_FLIGHT_LIMIT bytes are queued for the worker.
 */
class WorkerDigester implements Digester {
  private readonly worker: Worker;
  private inFlight = 0;
  private waiting: Array<() => void> = [];
  private result: ((d: Record<string, string>) => void) | null = null;
  private failure: Error | null = null;

  constructor(private readonly algorithms: DigestAlgorithm[]) {
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { algorithms } });
    this.worker.on('message', (m: { ack?: number; digests?: string[] }) => {
      if (m.digests) this.result?.(Object.fromEntries(this.algorithms.map((a, i) => [a, m.digests![i]])));
      if (m.ack === undefined) return;
      this.inFlight -= m.ack;
      if (this.inFlight <= IN_FLIGHT_LIMIT / 2) for (const wake of this.waiting.splice(0)) wake();
    });
    this.worker.on('error', (err) => {
      this.failure = err;
      for (const wake of this.waiting.splice(0)) wake();
    });
  }

  async update(chunk: Buffer): Promise<void> {
    if (this.failure) throw this.failure;
    // A copy the worker owns: socket chunks are views into buffers Node reuses.
    const copy = new Uint8Array(chunk.length);
    copy.set(chunk);
    this.inFlight += copy.byteLength;
    this.worker.postMessage(copy, [copy.buffer]);
    if (this.inFlight > IN_FLIGHT_LIMIT) await new Promise<void>((resolve) => this.waiting.push(resolve));
    if (this.failure) throw this.failure;
  }

  async digest(): Promise<Record<string, string>> {
    if (this.failure) throw this.failure;
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
  return expectedSize !== undefined && expectedSize < WORKER_THRESHOLD ? new InlineDigester(algorithms) : new WorkerDigester(algorithms);
}
