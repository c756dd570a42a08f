import { describe, expect, it } from 'vitest';
import { parseRange } from './byte-range';

describe('parseRange', () => {
  it('serves the whole file without a header or with one it cannot use', () => {
    expect(parseRange(undefined, 10)).toEqual({ kind: 'full' });
    expect(parseRange('bytes=0-1,3-4', 10)).toEqual({ kind: 'full' });
    expect(parseRange('items=0-1', 10)).toEqual({ kind: 'full' });
    expect(parseRange('bytes=-', 10)).toEqual({ kind: 'full' });
    expect(parseRange('bytes=5-2', 10)).toEqual({ kind: 'full' });
  });

  it('reads open, closed and suffix ranges, clamping the end', () => {
    expect(parseRange('bytes=4-', 10)).toEqual({ kind: 'partial', range: { start: 4, end: 9 } });
    expect(parseRange('bytes=2-5', 10)).toEqual({ kind: 'partial', range: { start: 2, end: 5 } });
    expect(parseRange('bytes=2-500', 10)).toEqual({ kind: 'partial', range: { start: 2, end: 9 } });
    expect(parseRange('bytes=-3', 10)).toEqual({ kind: 'partial', range: { start: 7, end: 9 } });
    expect(parseRange('bytes=-30', 10)).toEqual({ kind: 'partial', range: { start: 0, end: 9 } });
  });

  it('answers unsatisfiable at or past the end (curl resuming a complete file)', () => {
    expect(parseRange('bytes=10-', 10)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=99999999999999999999-', 10)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=-0', 10)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=0-', 0)).toEqual({ kind: 'unsatisfiable' });
  });
});
