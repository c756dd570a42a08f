/**
 * How Ruby Gem versions compare, as vagrant compares catalog versions (`Gem::Version`). Which
 * strings are versions at all: isGemVersion in contract/names.ts.
 */

/** A number segment is a number while exact, a bigint beyond; so equal values have one type. */
type Segment = number | bigint | string;

const isDigit = (c: number) => c >= 48 && c <= 57;
const isLetter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);

function numberSegment(v: string, start: number, end: number): number | bigint {
  while (start < end - 1 && v.charCodeAt(start) === 48) start++;
  const digits = v.slice(start, end);
  return end - start <= 15 ? Number(digits) : BigInt(digits);
}

/**
 * `Gem::Version#segments`: a "-" starts a pre-release (as ".pre."), numbers and letter runs split
 * apart, anything else separates. One pass over the characters: sorting a search page's versions
 * spent its time in regular expressions and BigInt parsing.
 */
function segments(v: string): Segment[] {
  const out: Segment[] = [];
  let i = 0;
  while (i < v.length) {
    const c = v.charCodeAt(i);
    const run = isDigit(c) ? isDigit : isLetter(c) ? isLetter : undefined;
    if (!run) {
      if (c === 45) out.push('pre');
      i++;
      continue;
    }
    let end = i + 1;
    while (end < v.length && run(v.charCodeAt(end))) end++;
    out.push(run === isDigit ? numberSegment(v, i, end) : v.slice(i, end));
    i = end;
  }
  return out;
}

/** `Gem::Version#<=>` on parsed segments: missing ones count as 0, a letter segment sorts before any number. */
function compareSegments(l: Segment[], r: Segment[]): number {
  for (let i = 0; i < Math.max(l.length, r.length); i++) {
    const x = l[i] ?? 0;
    const y = r[i] ?? 0;
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
  return items
    .map((item) => ({ item, seg: segments(version(item)) }))
    .sort((a, b) => compareSegments(b.seg, a.seg))
    .map((x) => x.item);
}
