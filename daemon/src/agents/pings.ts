import type { AgentStatus } from '../contract/wire/jsonapi';

/** A report that changes nothing but the agent's ping: its time and address. */
export interface Ping {
  id: string;
  tokenId: string;
  status: AgentStatus;
  at: string;
  ip: string;
}

/** What a write of an agent left in the database, as this daemon wrote it. */
interface Known {
  tokenId: string;
  status: AgentStatus;
}

/** How long a ping waits in memory before it is written with the others of that second. */
export const PING_DELAY_MS = 1000;

/**
 * How long an agent stays known without a report: agents that vanish without a word (killed,
 * their token deleted) are forgotten after one to two of these. One that reports less often
 * than this is written at once every time, as before write-behind.
 */
const KNOWN_FOR_MS = 10 * 60_000;

/**
 * Write-behind for agent pings. Most reports only say "still here, same status"; 1,000 agents
 * every 10 s made that a commit every 10 ms, which cost as much CPU as the rest of the request
 * (bench/README.md's `agents` row). A ping for an agent this daemon last wrote with the same token and status is kept
 * here and answered at once; the pings of a second are written together, each conditioned on the
 * token and a live status, and never over a newer ping (agents/queries.ts `writeKeptPings`, `keptReport`).
 *
 * What this costs and why it is safe:
 * - Whoever reads agents through AgentsRepository flushes first, so this daemon's API, UI and
 *   watchdog never see an old ping. Another daemon on the same database sees a ping at most
 *   PING_DELAY_MS late, far below the watchdog's minutes.
 * - An agent deleted, or turned errored or exited, by another daemon or the CLI shows when its
 *   kept ping finds no row to update: the agent is forgotten, and its next report to this daemon
 *   is written at once and told to stop. Such an agent hears "stop" one report late, from each
 *   daemon that knew it.
 * - A crash loses at most a second of pings; the agents report again.
 */
export class PingBuffer {
  /** Two generations: an agent known in either is known; `previous` is dropped every KNOWN_FOR_MS. */
  private known = new Map<string, Known>();
  private previous = new Map<string, Known>();
  private rotatedAt = performance.now();
  private pending = new Map<string, Ping>();
  private timer: NodeJS.Timeout | undefined;
  private chain: Promise<void> = Promise.resolve();
  private closed = false;

  /**
   * `write` stores pings and returns the ids it found no row for (deleted, final, another token,
   * or a newer ping); `onError` hears of a batch that could not be written (those agents' next
   * reports are written at once, and meet the error themselves).
   */
  constructor(
    private readonly write: (pings: Ping[]) => Promise<Set<string>>,
    private readonly onError: (err: unknown) => void,
    private readonly delayMs = PING_DELAY_MS,
  ) {}

  /** Keeps `p` to write later when the agent is known with its token and status; false: write it now. */
  take(p: Ping): boolean {
    if (this.closed) return false;
    const k = this.lookup(p.id);
    if (!k || k.tokenId !== p.tokenId || k.status !== p.status) return false;
    this.pending.set(p.id, p);
    this.timer ??= setTimeout(() => void this.flush(), this.delayMs).unref();
    return true;
  }

  /**
   * Starts the agent over as `now`: the token and status its row holds after a write that did not
   * go through this buffer (a registration, or a report written at once), or `null` when it was
   * deleted or is final. A ping kept of it is older than that write and is dropped.
   */
  resetTo(id: string, now: Known | null): void {
    this.pending.delete(id);
    this.forget(id);
    if (now) this.known.set(id, now);
  }

  /**
   * The agent's status changed in a way this daemon did not write (the watchdog turned it unknown): its next report is
   * written at once.
   */
  forget(id: string): void {
    this.known.delete(id);
    this.previous.delete(id);
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
        for (const id of await this.write(batch)) this.forget(id);
      } catch (err) {
        for (const p of batch) this.forget(p.id);
        try {
          this.onError(err);
        } catch {
          // Whoever is told may not stop the next batch.
        }
      }
    });
    return this.chain;
  }

  /** Writes what is kept and keeps nothing more: the daemon's last step before the database closes. */
  close(): Promise<void> {
    this.closed = true;
    return this.flush();
  }

  private lookup(id: string): Known | undefined {
    const now = performance.now();
    if (now - this.rotatedAt >= KNOWN_FOR_MS) {
      this.previous = this.known;
      this.known = new Map();
      this.rotatedAt = now;
    }
    const k = this.known.get(id);
    if (k) return k;
    // Reported within two generations: known for another.
    const again = this.previous.get(id);
    if (!again) return undefined;
    this.previous.delete(id);
    this.known.set(id, again);
    return again;
  }
}
