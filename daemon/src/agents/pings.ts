import type { AgentStatus } from '../contract/wire-jsonapi';

/** A report that changes nothing but the agent's ping: its time and address. */
export interface Ping { id: string; tokenId: string; status: AgentStatus; at: string; ip: string }

/** What a write of an agent left in the database, as this daemon wrote it. */
interface Known { tokenId: string; status: AgentStatus }

/** How long a ping waits in memory before it is written with the others of that second. */
export const PING_DELAY_MS = 1000;

/**
 * Write-behind for agent pings. Most reports only say "still here, same status"; 1,000 agents
 * every 10 s made that a commit every 10 ms, which cost as much CPU as the rest of the request
 * (issue 9). A ping for an agent this daemon last wrote with the same token and status is kept
 * here and answered at once; the pings of a second are written together, each still conditioned
 * on the token and status (agents/queries.ts `ping`).
 *
 * What this costs and why it is safe:
 * - Whoever reads agents through AgentsRepository flushes first, so this daemon's API, UI and
 *   watchdog never see an old ping. Another daemon on the same database sees a ping at most
 *   PING_DELAY_MS late, far below the watchdog's minutes.
 * - A change this daemon did not write (the agent deleted, or turned errored, by another daemon
 *   or the CLI) shows when its ping finds no row to update: the agent is forgotten, and its next
 *   report is written at once and told to stop. Such an agent hears "stop" one report late.
 * - A crash loses at most a second of pings; the agents report again.
 */
export class PingBuffer {
  private readonly known = new Map<string, Known>();
  private pending = new Map<string, Ping>();
  private timer: NodeJS.Timeout | undefined;
  private chain: Promise<void> = Promise.resolve();

  /**
   * `write` stores pings and returns the ids it found no row for (with that token and status);
   * `onError` hears of a batch that could not be written (those agents' next reports are written
   * at once, and meet the error themselves).
   */
  constructor(
    private readonly write: (pings: Ping[]) => Promise<Set<string>>,
    private readonly onError: (err: unknown) => void,
    private readonly delayMs = PING_DELAY_MS,
  ) {}

  /** Keeps `p` to write later when the agent is known with its token and status; false: write it now. */
  take(p: Ping): boolean {
    const k = this.known.get(p.id);
    if (!k || k.tokenId !== p.tokenId || k.status !== p.status) return false;
    this.pending.set(p.id, p);
    this.timer ??= setTimeout(() => void this.flush(), this.delayMs).unref();
    return true;
  }

  /**
   * The agent was just written with this token and status (registered, or a report written at
   * once), or `null`: it was deleted, or is final. A kept ping of it is older and dropped.
   */
  wrote(id: string, now: Known | null): void {
    this.pending.delete(id);
    if (now) this.known.set(id, now);
    else this.known.delete(id);
  }

  /** Agents may have changed in ways this daemon cannot tell (the watchdog turned some): every next report is written at once. */
  forgetAll(): void {
    this.known.clear();
  }

  /** Writes what is kept; resolves (never rejects) when every ping taken before the call is written or given up. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.size === 0) return this.chain;
    const batch = [...this.pending.values()];
    this.pending = new Map();
    // One write at a time: a later batch never lands before an earlier one.
    this.chain = this.chain.then(async () => {
      try {
        for (const id of await this.write(batch)) this.known.delete(id);
      } catch (err) {
        for (const p of batch) this.known.delete(p.id);
        this.onError(err);
      }
    });
    return this.chain;
  }
}
