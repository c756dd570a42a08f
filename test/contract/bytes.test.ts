import { describe, expect, it } from 'vitest';
import { formatBytes, humanBytes } from '../../daemon/src/contract/bytes';

// The test of daemon/src/contract/bytes.ts: contract/ holds only what the web UI bundles
// (test/contract/runtime-boundaries.test.ts).

const MIB = 1024 * 1024;

describe('formatBytes', () => {
  it.each([
    [0, '0 B'],
    [1023, '1023 B'],
    [1024, '1.0 KiB'],
    [1536, '1.5 KiB'],
    [5 * MIB, '5.0 MiB'],
    [MIB - 1, '1024.0 KiB'],
    [3 * 1024 ** 4, '3.0 TiB'],
    [2048 * 1024 ** 4, '2048.0 TiB'],
  ])('%d is %s', (n, text) => {
    expect(formatBytes(n)).toBe(text);
  });

  it('a size not known is a dash', () => {
    for (const n of [null, undefined, Number.NaN, Number.POSITIVE_INFINITY]) expect(formatBytes(n)).toBe('—');
  });
});

describe('humanBytes', () => {
  it.each([
    [0, '0 bytes'],
    [1023, '1023 bytes'],
    [1536, '1.5 KiB'],
    [9.96 * 1024, '10.0 KiB'],
    [12 * MIB, '12 MiB'],
    [800 * MIB, '800 MiB'],
    [2.25 * 1024 * MIB, '2.3 GiB'],
    [5 * 1024 ** 5, '5120 TiB'],
  ])('%d is %s', (n, text) => {
    expect(humanBytes(n)).toBe(text);
  });
});
