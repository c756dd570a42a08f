import type { Context } from 'koa';

/**
 * Variants (base URL × API version) kept per value: a handful in practice; the bound keeps odd Host
 * headers from growing it. The first kept goes first, however often it was read since.
 */
const MAX_VARIANTS = 8;

/**
 * A value's answers, one per variant, oldest first. A short list, not an LRUCache: there is one per
 * box or pool a read cache holds (tens of thousands), and an LRUCache costs ~2,000 bytes of heap
 * against ~210 for a list of one answer (measured with Node 20, 20,000 of each).
 */
interface Entry {
  rest: readonly object[];
  variants: [variant: string, answer: Buffer][];
}

/**
 * JSON answers kept as bytes beside the values they were built from. A read cache
 * (store/cache/read-cache.ts) hands out the same frozen objects until a table they come from
 * changes; an answer built from the same objects is the same answer, so it is serialized once,
 * not on every request (building and stringifying an 11 KiB box cost the box endpoint a fifth of
 * its time: bench/RESULTS.md). Keyed by the objects' identity, so a changed box (new objects)
 * is a new entry and a dropped one goes with them; `variant` is whatever else shapes the answer
 * (base URL, API version). Values that are not frozen did not come from a cache: they are
 * serialized every time.
 */
export class AnswerMemo {
  private readonly byFirst = new WeakMap<object, Entry>();

  /** Answers `build()`'s value as JSON (`type`), from memory when `from` and `variant` were answered before. */
  send(
    ctx: Context,
    from: readonly [object, ...object[]],
    variant: string,
    build: () => unknown,
    type = 'application/json',
  ): void {
    ctx.type = type;
    ctx.body = this.bytes(from, variant, build);
  }

  private bytes(from: readonly [object, ...object[]], variant: string, build: () => unknown): Buffer {
    const serialize = () => Buffer.from(JSON.stringify(build()));
    if (!from.every((o) => Object.isFrozen(o))) return serialize();
    const [first, ...rest] = from;
    let entry = this.byFirst.get(first);
    if (!entry || entry.rest.length !== rest.length || entry.rest.some((o, i) => o !== rest[i])) {
      entry = { rest, variants: [] };
      this.byFirst.set(first, entry);
    }
    const kept = entry.variants.find(([v]) => v === variant);
    if (kept) return kept[1];
    const made = serialize();
    if (entry.variants.length >= MAX_VARIANTS) entry.variants.shift();
    entry.variants.push([variant, made]);
    return made;
  }
}
