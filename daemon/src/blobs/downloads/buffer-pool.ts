/**
 * Buffers of one size, used again from one download to the next. A buffer a download leaves is
 * freed only by the garbage collector, which V8 runs for outside memory only after some 64 MiB of
 * it: two rounds of eight parallel downloads lifted the daemon's memory by 40 MiB that way, past
 * the 150 MiB goal of bench/README.md's `transfers` row. A buffer comes back only from a download whose every write has
 * completed: one that failed may still be read by a write under way, and is left to the collector.
 */
export class BufferPool {
  private readonly free: Buffer[] = [];

  /** `keep`: buffers held for reuse at most (the rest go to the collector). */
  constructor(
    readonly size: number,
    private readonly keep: number,
  ) {}

  take(): Buffer {
    return this.free.pop() ?? Buffer.allocUnsafeSlow(this.size);
  }

  give(buffer: Buffer): void {
    if (buffer.length === this.size && this.free.length < this.keep) this.free.push(buffer);
  }
}
