import { describe, expect, it } from 'vitest';
import { RateMeter, formatEta } from '../../renderer/src/api/upload-meter';

describe('the upload bar: speed and time left', () => {
  it('measures the rate over the last seconds, not the whole upload', () => {
    const m = new RateMeter(3000);
    m.add(0, 0);
    expect(m.rate()).toBeNull();
    m.add(1000, 10 * 1024 * 1024);
    expect(m.rate()).toBe(10 * 1024 * 1024);
    // A stall: after the window only the slow part counts.
    for (let t = 2000; t <= 6000; t += 1000) m.add(t, 10 * 1024 * 1024 + (t - 1000) * 10);
    expect(m.rate()).toBe(10_000);
    expect(m.eta(10 * 1024 * 1024 + 50_000 + 1_000_000)).toBe(100);
  });

  it('words the time left as people say it', () => {
    expect(formatEta(null)).toBe('');
    expect(formatEta(4)).toBe('a few seconds left');
    expect(formatEta(42)).toBe('about 40 s left');
    expect(formatEta(58)).toBe('about 1 min left');
    expect(formatEta(130)).toBe('about 2 min left');
    expect(formatEta(4000)).toBe('about 1 h 7 min left');
  });
});
