import { describe, expect, it } from 'vitest';
import { parseConstraint, selectVersions } from './version-filter';

const all = ['0.9.0', '1.0.0', '1.0.0-beta', '1.2.0', '1.2.5', '1.3.0', '2.0.0', '10.0.0'];

describe('selectVersions', () => {
  it('takes every version newest first without a filter', () => {
    expect(selectVersions(all, {})).toEqual([
      '10.0.0',
      '2.0.0',
      '1.3.0',
      '1.2.5',
      '1.2.0',
      '1.0.0',
      '1.0.0-beta',
      '0.9.0',
    ]);
  });
  it('reads comma-separated requirements', () => {
    expect(selectVersions(all, { versions: '>= 1.0, < 2.0' })).toEqual(['1.3.0', '1.2.5', '1.2.0', '1.0.0']);
    expect(selectVersions(all, { versions: '1.2.0' })).toEqual(['1.2.0']);
    expect(selectVersions(all, { versions: '!= 1.2.0, <= 1.2.5, > 1.0.0' })).toEqual(['1.2.5']);
  });
  it('reads the pessimistic operator as Ruby Gems do', () => {
    expect(selectVersions(all, { versions: '~> 1.2' })).toEqual(['1.3.0', '1.2.5', '1.2.0']);
    expect(selectVersions(all, { versions: '~> 1.2.0' })).toEqual(['1.2.5', '1.2.0']);
  });
  it('keeps the newest N after the constraint', () => {
    expect(selectVersions(all, { latest: 2 })).toEqual(['10.0.0', '2.0.0']);
    expect(selectVersions(all, { versions: '< 2', latest: 2 })).toEqual(['1.3.0', '1.2.5']);
  });
  it('refuses what is not a requirement', () => {
    expect(() => parseConstraint('')).toThrow(/constraint/);
    expect(() => parseConstraint('>= v1')).toThrow(/not a version requirement/);
    expect(() => parseConstraint('=> 1.0')).toThrow(/not a version requirement/);
  });
});
