import { describe, expect, it, vi } from 'vitest';
import { backoffDelay, retrying } from './backoff';

const fail = (message = 'refused') => Promise.reject(Object.assign(new Error(message), { code: '40001' }));

describe('backoffDelay', () => {
  it('doubles from the first wait and stays at the cap', () => {
    const agent = { firstMs: 500, maxMs: 30_000 };
    expect([1, 2, 3, 4, 5, 6, 7, 8, 50].map((n) => backoffDelay(agent, n))).toEqual([
      500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000,
    ]);
  });

  it('with full jitter, draws below the same bound', () => {
    const spread = { firstMs: 2, maxMs: 128, jitter: 'full' as const };
    expect([1, 2, 7, 8, 29].map((n) => backoffDelay(spread, n, () => 0.5))).toEqual([1, 2, 64, 64, 64]);
    expect(backoffDelay(spread, 3, () => 0)).toBe(0);
    expect(backoffDelay(spread, 3, () => 0.999)).toBeLessThan(8);
  });
});

describe('retrying', () => {
  it('calls again after each failure until one succeeds, telling each wait', async () => {
    const waits: number[] = [];
    const result = await retrying(async (attempt) => (attempt < 4 ? fail() : `done on ${attempt}`), {
      backoff: { firstMs: 1, maxMs: 2 },
      onRetry: (_err, wait, failures) => void waits.push(failures * 100 + wait),
    });
    expect(result).toBe('done on 4');
    expect(waits).toEqual([101, 202, 302]);
  });

  it('gives up after `attempts` calls with the last failure', async () => {
    let calls = 0;
    await expect(
      retrying(
        () => {
          calls++;
          return fail(`call ${calls}`);
        },
        { backoff: { firstMs: 0, maxMs: 0 }, attempts: 3 },
      ),
    ).rejects.toThrow('call 3');
    expect(calls).toBe(3);
  });

  it('throws a failure that may not be retried at once', async () => {
    let calls = 0;
    const retryable = (err: unknown) => (err as { code?: string }).code === '40001';
    await expect(
      retrying(
        () => {
          calls++;
          return calls === 1 ? fail() : Promise.reject(new Error('unique violation'));
        },
        {
          backoff: { firstMs: 0, maxMs: 0 },
          retryable,
        },
      ),
    ).rejects.toThrow('unique violation');
    expect(calls).toBe(2);
  });

  it('an abort during a wait rejects with the reason and calls no more', async () => {
    const stop = new AbortController();
    let calls = 0;
    const run = retrying(
      () => {
        calls++;
        return fail();
      },
      {
        backoff: { firstMs: 3_600_000, maxMs: 3_600_000 },
        signal: stop.signal,
        onRetry: () => stop.abort(new Error('stopped by signal')),
      },
    );
    await expect(run).rejects.toThrow('stopped by signal');
    expect(calls).toBe(1);
  });
});

describe('retrying, as the loops that use it need', () => {
  it('goes on from the failures before it, and its waits stay at the cap', async () => {
    const told: Array<[number, number]> = [];
    await retrying(async (attempt) => (attempt < 4 ? fail() : 'ok'), {
      backoff: { firstMs: 1, maxMs: 4 },
      failedBefore: 1,
      onRetry: (_err, wait, failures) => void told.push([failures, wait]),
    });
    expect(told).toEqual([
      [2, 2],
      [3, 4],
      [4, 4],
    ]);
  });

  it('calls again only once what onRetry returns has resolved', async () => {
    const steps: string[] = [];
    await retrying(
      async (attempt) => {
        steps.push(`call ${attempt}`);
        return attempt < 2 ? fail() : 'ok';
      },
      {
        backoff: { firstMs: 0, maxMs: 0 },
        onRetry: async () => {
          await new Promise((resolve) => setImmediate(resolve));
          steps.push('told');
        },
      },
    );
    expect(steps).toEqual(['call 1', 'told', 'call 2']);
  });

  it('an abort during a call rejects with the reason once the call has settled, without telling onRetry', async () => {
    const stop = new AbortController();
    let settled = false;
    const onRetry = vi.fn();
    const run = retrying(
      async () => {
        stop.abort(new Error('cancelled'));
        await new Promise((resolve) => setImmediate(resolve));
        settled = true;
        return fail();
      },
      { backoff: { firstMs: 0, maxMs: 0 }, signal: stop.signal, onRetry },
    );
    await expect(run).rejects.toThrow('cancelled');
    expect(settled).toBe(true);
    expect(onRetry).not.toHaveBeenCalled();
  });

  it('a call that succeeds while the signal aborts still gives its result; an aborted signal calls nothing', async () => {
    const stop = new AbortController();
    const result = await retrying(
      async () => {
        stop.abort(new Error('cancelled'));
        return 'done';
      },
      { backoff: { firstMs: 0, maxMs: 0 }, signal: stop.signal },
    );
    expect(result).toBe('done');
    const run = vi.fn(async () => 'again');
    await expect(retrying(run, { backoff: { firstMs: 0, maxMs: 0 }, signal: stop.signal })).rejects.toThrow(
      'cancelled',
    );
    expect(run).not.toHaveBeenCalled();
  });
});
