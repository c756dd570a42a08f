import { describe, expect, it } from 'vitest';
import { compareGemVersions, isGemVersion, sortByGemVersionDesc } from './gem-version';

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
    const sorted = ['1.10.0', '1.0.0-beta', '1.2', '1.0.0', '1.0.0.a', '99999999999999999999.0', '1.2.0.1'].sort(compareGemVersions);
    expect(sorted).toEqual(['1.0.0.a', '1.0.0-beta', '1.0.0', '1.2', '1.2.0.1', '1.10.0', '99999999999999999999.0']);
  });
  it('treats trailing zeros as equal', () => {
    expect(compareGemVersions('1.0', '1.0.0')).toBe(0);
  });
});

describe('sortByGemVersionDesc', () => {
  it('orders highest first like compareGemVersions and keeps equal versions in their order', () => {
    const items = ['1.10.0', '1.0.0-beta', '1.0', '1.2', '1.0.0', '1.0.0.a'].map((version, i) => ({ version, i }));
    expect(sortByGemVersionDesc(items, (x) => x.version).map((x) => `${x.version}#${x.i}`))
      .toEqual(['1.10.0#0', '1.2#3', '1.0#2', '1.0.0#4', '1.0.0-beta#1', '1.0.0.a#5']);
  });
});
