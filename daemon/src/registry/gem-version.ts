/**
 * Ruby Gem versions, because vagrant parses every catalog version with `Gem::Version.new` and
 * fails on anything else (`v1.0` is rejected; `1.0.0-beta` and `1.0.0.rc1` are fine).
 */
const GEM_VERSION = /^[0-9]+(?:\.[0-9a-zA-Z]+)*(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;

export const MAX_VERSION_LENGTH = 64;

export function isGemVersion(v: string): boolean {
  return v.length <= MAX_VERSION_LENGTH && GEM_VERSION.test(v);
}

type Segment = bigint | string;

/** `Gem::Version#segments`: a "-" starts a pre-release, numbers and letter runs split apart. */
function segments(v: string): Segment[] {
  const parts = v.replace(/-/g, '.pre.').match(/[0-9]+|[a-z]+/gi) ?? [];
  return parts.map((s) => (/^[0-9]+$/.test(s) ? BigInt(s) : s));
}

/** `Gem::Version#<=>` on parsed segments: missing ones count as 0, a letter segment sorts before any number. */
function compareSegments(l: Segment[], r: Segment[]): number {
  for (let i = 0; i < Math.max(l.length, r.length); i++) {
    const x = l[i] ?? 0n;
    const y = r[i] ?? 0n;
    if (x === y) continue;
    if (typeof x === 'string' && typeof y !== 'string') return -1;
    if (typeof x !== 'string' && typeof y === 'string') return 1;
    return x < y ? -1 : 1;
  }
  return 0;
}

export function compareGemVersions(a: string, b: string): number {
  return compareSegments(segments(a), segments(b));
}

/**
 * Items ordered by their version, highest first. Each version is parsed once rather than on
 * every comparison (parsing dominated loading a catalog).
 */
export function sortByGemVersionDesc<T>(items: readonly T[], version: (t: T) => string): T[] {
  return items.map((item) => ({ item, seg: segments(version(item)) }))
    .sort((a, b) => compareSegments(b.seg, a.seg))
    .map((x) => x.item);
}
