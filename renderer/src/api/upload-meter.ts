// Pure (no DOM): the upload bar's arithmetic, tested under Node (test/ui/upload-meter.test.ts).

/**
 * Upload speed over the last few seconds (a whole-upload average would hide a stall) and the time
 * left at that speed. Times are in milliseconds from any fixed origin (performance.now()).
 */
export class RateMeter {
  private samples: Array<{ at: number; loaded: number }> = [];
  constructor(private readonly windowMs = 3000) {}

  add(at: number, loaded: number): void {
    this.samples.push({ at, loaded });
    while (this.samples.length > 2 && at - this.samples[1].at >= this.windowMs) this.samples.shift();
  }

  /** Bytes per second, or null until half a second has been measured. */
  rate(): number | null {
    const first = this.samples[0];
    const last = this.samples[this.samples.length - 1];
    if (!first || !last || last.at - first.at < 500) return null;
    return ((last.loaded - first.loaded) * 1000) / (last.at - first.at);
  }

  /** Seconds left for `total` bytes at the current rate; null while unknown or stalled. */
  eta(total: number): number | null {
    const rate = this.rate();
    const last = this.samples[this.samples.length - 1];
    if (!rate || !last) return null;
    return Math.max(0, (total - last.loaded) / rate);
  }
}

/** 130 → "about 2 min left"; 42 → "about 40 s left"; 4000 → "about 1 h 7 min left". */
export function formatEta(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds)) return '';
  if (seconds < 10) return 'a few seconds left';
  if (seconds < 55) return `about ${Math.round(seconds / 10) * 10} s left`;
  if (seconds < 3600) return `about ${Math.round(seconds / 60)} min left`;
  return `about ${Math.floor(seconds / 3600)} h ${Math.round((seconds % 3600) / 60)} min left`;
}
