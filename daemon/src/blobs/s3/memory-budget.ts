/** Gives a share back; calling it again does nothing. */
export type Release = () => void;

interface Waiter {
  bytes: number;
  grant: (release: Release) => void;
}

/**
 * A budget of bytes held in memory by concurrent work (the S3 store's buffered upload parts): a
 * weighted semaphore, first come first served. A share that fits waits for nobody; one that does
 * not waits until enough is given back. A share larger than the whole budget is granted when
 * nothing else is held, so it runs alone instead of never. First come first served: a large share
 * at the head of the queue is not starved by small ones slipping past it.
 *
 * p-limit (in node_modules through another package) counts tasks, not bytes; async-mutex's
 * weighted Semaphore is not installed and would wait for ever on a share above its total.
 */
export class MemoryBudget {
  private heldBytes = 0;
  private peakBytes = 0;
  private readonly queue: Waiter[] = [];

  constructor(readonly limit: number) {
    if (!Number.isSafeInteger(limit) || limit <= 0)
      throw new RangeError(`a memory budget must be a positive number of bytes, not ${limit}`);
  }

  /** Bytes granted and not given back. */
  get held(): number {
    return this.heldBytes;
  }
  /** The most bytes ever held at once (for tests and metrics). */
  get peak(): number {
    return this.peakBytes;
  }
  /** Shares waiting for room. */
  get waiting(): number {
    return this.queue.length;
  }

  /**
   * Resolves with the release of a `bytes` share once it fits. When `signal` aborts first, the
   * share leaves the queue (the shares behind it may then fit) and this rejects with the
   * signal's reason; nothing is held then.
   */
  acquire(bytes: number, signal?: AbortSignal): Promise<Release> {
    if (!Number.isSafeInteger(bytes) || bytes < 0)
      return Promise.reject(new RangeError(`a memory share must be a whole number of bytes, not ${bytes}`));
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.queue.length === 0 && this.fits(bytes)) return Promise.resolve(this.take(bytes));
    return new Promise<Release>((resolve, reject) => {
      const waiter: Waiter = { bytes, grant: resolve };
      if (signal) {
        const onAbort = () => {
          const at = this.queue.indexOf(waiter);
          if (at < 0) return;
          this.queue.splice(at, 1);
          this.grantWaiting();
          reject(signal.reason);
        };
        waiter.grant = (release) => {
          signal.removeEventListener('abort', onAbort);
          resolve(release);
        };
        signal.addEventListener('abort', onAbort, { once: true });
      }
      this.queue.push(waiter);
    });
  }

  private fits(bytes: number): boolean {
    return this.heldBytes === 0 || this.heldBytes + bytes <= this.limit;
  }

  private take(bytes: number): Release {
    this.heldBytes += bytes;
    this.peakBytes = Math.max(this.peakBytes, this.heldBytes);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.heldBytes -= bytes;
      this.grantWaiting();
    };
  }

  /** Grants the shares at the head of the queue that now fit, in order. */
  private grantWaiting(): void {
    for (let next = this.queue[0]; next && this.fits(next.bytes); next = this.queue[0]) {
      this.queue.shift();
      next.grant(this.take(next.bytes));
    }
  }
}
