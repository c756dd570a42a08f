import { setTimeout as sleep } from 'node:timers/promises';

/**
 * How long to wait after a failure: `firstMs` after the first, doubling after each one more, never
 * more than `maxMs`. With `jitter: 'full'` the wait is drawn evenly below that bound instead
 * (AWS's "full jitter"), which spreads apart the retries of callers that keep meeting each other.
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
  /** Failures in a row before this `retrying` began: its waits go on from there (none when left out). */
  failedBefore?: number;
  /**
   * Told of each failure that will be retried, how long the wait before the next call is, and the failures in a
   * row so far (`failedBefore` included); the wait begins once what it returns has resolved.
   */
  onRetry?: (err: unknown, waitMs: number, failures: number) => void | Promise<void>;
  /**
   * Stops the retries: an abort rejects with the signal's reason, at once during a wait, and during a call once
   * that call has settled (a call that succeeds still gives its result), so no call runs after `retrying` settles.
   */
  signal?: AbortSignal;
  /** The waits do not keep the process alive (a background loop that a stop aborts anyway). */
  unref?: boolean;
}

/**
 * Calls `run` until it resolves, waiting `backoff` between failures: the one retry loop of the daemon.
 *
 * Not p-retry, which the daemon once used beside it: its jitter multiplies by 1 to 2 rather than
 * drawing below the bound, an abort rejects while the call under way still runs, it gives up at once
 * on a TypeError other than fetch's network failures (acme-client throws one for a connection that
 * failed), and its waits cannot go on from failures before the call.
 */
export async function retrying<T>(run: (attempt: number) => Promise<T>, opts: RetryOptions): Promise<T> {
  const { signal } = opts;
  for (let attempt = 1; ; attempt++) {
    signal?.throwIfAborted();
    try {
      return await run(attempt);
    } catch (err) {
      signal?.throwIfAborted();
      if (attempt >= (opts.attempts ?? Infinity) || !(opts.retryable?.(err) ?? true)) throw err;
      const failures = (opts.failedBefore ?? 0) + attempt;
      const wait = backoffDelay(opts.backoff, failures);
      await opts.onRetry?.(err, wait, failures);
      await sleep(wait, undefined, { ref: !opts.unref, ...(signal ? { signal } : {}) }).catch((e: unknown) => {
        throw signal?.aborted ? signal.reason : e;
      });
    }
  }
}
