import { describe, expect, it } from 'vitest';
import { MemoryBudget, type Release } from './memory-budget';

/** Lets pending promise callbacks run (grants resolve through the microtask queue). */
const settle = () => new Promise<void>((r) => setImmediate(r));

/** Acquires and records when the share is granted; `giveBack` releases a granted share. */
function track(budget: MemoryBudget, bytes: number, signal?: AbortSignal) {
  const t: { release?: Release; error?: unknown } = {};
  const done = budget.acquire(bytes, signal).then(
    (r) => {
      t.release = r;
    },
    (e: unknown) => {
      t.error = e;
    },
  );
  const giveBack = () => {
    if (!t.release) throw new Error(`the ${bytes}-byte share was not granted`);
    t.release();
  };
  return Object.assign(t, { done, giveBack });
}

describe('MemoryBudget', () => {
  it('grants shares that fit at once, and makes the next wait until enough is given back', async () => {
    const budget = new MemoryBudget(100);
    const a = track(budget, 60);
    const b = track(budget, 40);
    const c = track(budget, 30);
    await settle();
    expect([a.release, b.release].every(Boolean)).toBe(true);
    expect(c.release).toBeUndefined();
    expect({ held: budget.held, waiting: budget.waiting }).toEqual({ held: 100, waiting: 1 });
    b.giveBack();
    await settle();
    expect(c.release).toBeDefined();
    expect(budget.held).toBe(90);
    a.giveBack();
    c.giveBack();
    expect({ held: budget.held, peak: budget.peak, waiting: budget.waiting }).toEqual({
      held: 0,
      peak: 100,
      waiting: 0,
    });
  });

  it('serves waiters first come first served: a small share does not pass a large one waiting', async () => {
    const budget = new MemoryBudget(100);
    const a = track(budget, 50);
    const large = track(budget, 80);
    const small = track(budget, 10);
    await settle();
    expect([large.release, small.release]).toEqual([undefined, undefined]);
    a.giveBack();
    await settle();
    expect(large.release).toBeDefined();
    expect(small.release).toBeDefined();
    expect(budget.held).toBe(90);
  });

  it('runs a share larger than the whole budget alone, when nothing else is held', async () => {
    const budget = new MemoryBudget(100);
    const a = track(budget, 10);
    const huge = track(budget, 250);
    const after = track(budget, 10);
    await settle();
    expect(huge.release).toBeUndefined();
    a.giveBack();
    await settle();
    expect(huge.release).toBeDefined();
    expect(after.release).toBeUndefined();
    expect(budget.held).toBe(250);
    huge.giveBack();
    await settle();
    expect(after.release).toBeDefined();
    expect(budget.held).toBe(10);
  });

  it('gives a share back once however often it is released', async () => {
    const budget = new MemoryBudget(100);
    const a = track(budget, 30);
    const b = track(budget, 30);
    await settle();
    a.giveBack();
    a.giveBack();
    expect(budget.held).toBe(30);
    b.giveBack();
    expect(budget.held).toBe(0);
  });

  it('takes a waiter whose signal aborts out of the queue, rejecting with the reason, so the ones behind it may go', async () => {
    const budget = new MemoryBudget(100);
    const a = track(budget, 60);
    const gone = new AbortController();
    const blocked = track(budget, 50, gone.signal);
    const fits = track(budget, 40);
    await settle();
    expect(budget.waiting).toBe(2);
    const reason = new Error('client went away');
    gone.abort(reason);
    await settle();
    expect(blocked.error).toBe(reason);
    expect(fits.release).toBeDefined();
    expect({ held: budget.held, waiting: budget.waiting }).toEqual({ held: 100, waiting: 0 });
    a.giveBack();
    fits.giveBack();
    expect(budget.held).toBe(0);
  });

  it('refuses an already aborted signal, and ignores an abort after the grant', async () => {
    const budget = new MemoryBudget(100);
    const reason = new Error('already gone');
    await expect(budget.acquire(10, AbortSignal.abort(reason))).rejects.toBe(reason);
    const late = new AbortController();
    const release = await budget.acquire(10, late.signal);
    late.abort();
    expect(budget.held).toBe(10);
    release();
    expect(budget.held).toBe(0);
  });

  it('refuses a budget or a share that is not a whole number of bytes', async () => {
    expect(() => new MemoryBudget(0)).toThrow(RangeError);
    expect(() => new MemoryBudget(Number.NaN)).toThrow(RangeError);
    await expect(new MemoryBudget(10).acquire(-1)).rejects.toBeInstanceOf(RangeError);
    await expect(new MemoryBudget(10).acquire(1.5)).rejects.toBeInstanceOf(RangeError);
  });
});
