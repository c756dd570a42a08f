import { describe, expect, it } from 'vitest';
import { timeAgo } from '../../renderer/src/components/format';

describe('timeAgo', () => {
  const now = Date.parse('2026-11-25T12:00:00Z');
  const at = (seconds: number) => new Date(now + seconds * 1000).toISOString();
  // Node's Intl speaks the test machine's language; CI and this machine run in English.
  it('says how long ago, in the largest whole unit', () => {
    expect(timeAgo(at(-12), now)).toBe('12 seconds ago');
    expect(timeAgo(at(-3 * 60 - 5), now)).toBe('3 minutes ago');
    expect(timeAgo(at(-26 * 3600), now)).toBe('yesterday');
    expect(timeAgo(at(-400 * 86400), now)).toBe('last year');
  });
  it('reads a moment ahead of the browser as now, and a later time as to come', () => {
    expect(timeAgo(at(0), now)).toBe('now');
    expect(timeAgo(at(3), now)).toBe('now');
    expect(timeAgo(at(2 * 3600 + 30), now)).toBe('in 2 hours');
  });
});
