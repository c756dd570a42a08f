import type { Clock } from '../lib/clock';
import type { AgentsRepository } from './repository';

export interface WatchdogTimes {
  /** A live agent silent this long turns `unknown`. */
  unknownAfterSeconds: number;
  /** An `unknown` agent turns `errored` after this much more silence. */
  erroredAfterSeconds: number;
}

/**
 * Turns silent agents `unknown`, and `unknown` ones `errored`. Times come from the injected clock
 * and the last ping, so tests call `tick()` after moving a ManualClock instead of sleeping.
 */
export class AgentWatchdog {
  constructor(
    private readonly repo: AgentsRepository,
    private readonly clock: Clock,
    private readonly times: WatchdogTimes,
  ) {}

  async tick(): Promise<{ unknown: number; errored: number }> {
    const now = this.clock.now().getTime();
    const unknownBefore = new Date(now - this.times.unknownAfterSeconds * 1000).toISOString();
    const erroredBefore = new Date(
      now - (this.times.unknownAfterSeconds + this.times.erroredAfterSeconds) * 1000,
    ).toISOString();
    return this.repo.markSilent(unknownBefore, erroredBefore);
  }

  /** Ticks on a real interval until the returned function is called (registered with deps.onClose). */
  start(everyMs: number, onError: (err: unknown) => void): () => void {
    const timer = setInterval(() => void this.tick().catch(onError), everyMs);
    timer.unref();
    return () => clearInterval(timer);
  }
}
