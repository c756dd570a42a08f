import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isGemVersion } from '../../contract/names';
import { compareGemVersions, sortByGemVersionDesc } from './gem-version';

describe('isGemVersion', () => {
  it.each(['1', '1.0.0', '1.0.0-beta', '1.0.0.rc1', '2024.01.02', '0.1-pre.2'])('accepts %s', (v) => {
    expect(isGemVersion(v)).toBe(true);
  });
  it.each(['', 'v1.0', '1..0', '1.0.', ' 1.0', '1.0/..', '../1', '1.0 ', 'ü1', '1'.repeat(65)])('rejects %j', (v) => {
    expect(isGemVersion(v)).toBe(false);
  });
});

describe('compareGemVersions', () => {
  it('orders like Gem::Version', () => {
    const sorted = ['1.10.0', '1.0.0-beta', '1.2', '1.0.0', '1.0.0.a', '99999999999999999999.0', '1.2.0.1'].sort(
      compareGemVersions,
    );
    expect(sorted).toEqual(['1.0.0.a', '1.0.0-beta', '1.0.0', '1.2', '1.2.0.1', '1.10.0', '99999999999999999999.0']);
  });
  it('treats trailing zeros as equal', () => {
    expect(compareGemVersions('1.0', '1.0.0')).toBe(0);
  });
});

describe('sortByGemVersionDesc', () => {
  it('orders highest first like compareGemVersions and keeps equal versions in their order', () => {
    const items = ['1.10.0', '1.0.0-beta', '1.0', '1.2', '1.0.0', '1.0.0.a'].map((version, i) => ({ version, i }));
    expect(sortByGemVersionDesc(items, (x) => x.version).map((x) => `${x.version}#${x.i}`)).toEqual([
      '1.10.0#0',
      '1.2#3',
      '1.0#2',
      '1.0.0#4',
      '1.0.0-beta#1',
      '1.0.0.a#5',
    ]);
  });
});

describe('compareGemVersions against the plain reading of Gem::Version', () => {
  /** The straightforward implementation (regular expressions, BigInt) the fast one must agree with. */
  const reference = (a: string, b: string) => {
    const seg = (v: string) =>
      (v.replace(/-/g, '.pre.').match(/[0-9]+|[a-z]+/gi) ?? []).map((s) => (/^[0-9]+$/.test(s) ? BigInt(s) : s));
    const [l, r] = [seg(a), seg(b)];
    for (let i = 0; i < Math.max(l.length, r.length); i++) {
      const [x, y] = [l[i] ?? 0n, r[i] ?? 0n];
      if (x === y) continue;
      if (typeof x !== typeof y) return typeof x === 'string' ? -1 : 1;
      return x < y ? -1 : 1;
    }
    return 0;
  };
  const part = fc.oneof(
    fc.stringMatching(/^[0-9]{1,20}$/),
    fc.constantFrom('a', 'beta', 'rc', 'pre', 'B'),
    fc.constant('0'),
  );
  const version = fc
    .tuple(fc.stringMatching(/^[0-9]{1,3}$/), fc.array(fc.tuple(fc.constantFrom('.', '-'), part), { maxLength: 5 }))
    .map(([head, rest]) => head + rest.map(([sep, p]) => sep + p).join(''));

  it('agrees on any two versions', () => {
    fc.assert(
      fc.property(version, version, (a, b) => compareGemVersions(a, b) === reference(a, b)),
      { numRuns: 2000 },
    );
  });
});
