import { setTimeout as sleep } from 'node:timers/promises';

/**
 * How long to wait after a failure: `firstMs` after the first, doubling after each one more, never
 * more than `maxMs`. With `jitter: 'full'` the wait is drawn evenly below that bound instead
 * (AWS's "full jitter"), which spreads apart the retries of callers that keep meeting each other.
 *
 * p-retry (node-retry) cannot say these rules: its "forever" starts the doubling over once its
 * list of waits is used up rather than staying at the cap, and its jitter multiplies by 1 to 2
 * rather than drawing below the bound.
 */
export interface Backoff {
  firstMs: number;
  maxMs: number;
  jitter?: 'none' | 'full';
}

/** The wait after `failures` failures in a row (1 for the first). */
export function backoffDelay(policy: Backoff, failures: number, random: () => number = Math.random): number {
  const bound = Math.min(policy.firstMs * 2 ** Math.max(0, failures - 1), policy.maxMs);
  return policy.jitter === 'full' ? random() * bound : bound;
}

export interface RetryOptions {
  backoff: Backoff;
  /** Calls of `run` at most, the first included (unbounded when left out). */
  attempts?: number;
  /** Whether this failure may be retried; one that may not is thrown at once. Every failure may, when left out. */
  retryable?: (err: unknown) => boolean;
  /** Told of each failure that will be retried, and how long the wait before the next call is. */
  onRetry?: (err: unknown, waitMs: number, failures: number) => void;
  /** Stops the retries: an abort (during a call or a wait) rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** Calls `run` until it resolves, waiting `backoff` between failures (the one retry loop of the daemon). */
export async function retrying<T>(run: (attempt: number) => Promise<T>, opts: RetryOptions): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    opts.signal?.throwIfAborted();
    try {
      return await run(attempt);
    } catch (err) {
      opts.signal?.throwIfAborted();
      if (attempt >= (opts.attempts ?? Infinity) || !(opts.retryable?.(err) ?? true)) throw err;
      const wait = backoffDelay(opts.backoff, attempt);
      opts.onRetry?.(err, wait, attempt);
      await sleep(wait, undefined, opts.signal ? { signal: opts.signal } : undefined).catch((e: unknown) => {
        throw opts.signal?.aborted ? opts.signal.reason : e;
      });
    }
  }
}
