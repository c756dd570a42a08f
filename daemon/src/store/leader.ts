import type pg from 'pg';
import type { Logger } from 'pino';
import { ADVISORY_LOCKS } from './advisory-locks';

/** Starts the duties only one daemon performs at a time; resolves to their stop function. */
export type Duties = () => Promise<() => Promise<void>>;

/**
 * Who runs the agent watchdog, garbage collection and scheduled mirrors. `whileLeading` starts
 * the duties when this daemon leads and stops them when it no longer does; the function it
 * resolves to stops everything for good.
 */
export interface Leadership {
  whileLeading(duties: Duties): Promise<() => Promise<void>>;
  /** Whether this daemon leads now (for /readyz details and tests). */
  readonly leading: boolean;
}

/** One daemon on its own data folder always leads. */
export class SoleDaemon implements Leadership {
  leading = false;

  async whileLeading(duties: Duties): Promise<() => Promise<void>> {
    const stop = await duties();
    this.leading = true;
    return async () => {
      this.leading = false;
      await stop();
    };
  }
}

/**
 * Several daemons on one PostgreSQL database: the one holding a session advisory lock leads. The
 * lock lives on a connection of its own: when that daemon dies, or its connection does, the
 * server releases it and another daemon's next try (every `retryMs`) takes it over. A leader
 * checks its connection as often, and stops its duties as soon as it cannot be sure it holds it.
 */
export class AdvisoryLockLeadership implements Leadership {
  private client: pg.Client | null = null;
  private stopDuties: (() => Promise<void>) | null = null;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private turn: Promise<void> = Promise.resolve();

  constructor(
    private readonly url: string,
    private readonly log: Logger,
    private readonly retryMs: number,
  ) {}

  get leading(): boolean {
    return this.stopDuties !== null;
  }

  async whileLeading(duties: Duties): Promise<() => Promise<void>> {
    const step = () => {
      this.turn = this.turn
        .then(() => this.step(duties))
        .catch((err: unknown) => this.log.error({ err }, 'leader election step failed'));
      return this.turn;
    };
    await step();
    this.timer = setInterval(step, this.retryMs);
    this.timer.unref();
    return async () => {
      this.closed = true;
      if (this.timer) clearInterval(this.timer);
      await this.turn;
      await this.resign();
    };
  }

  /** Leading: checks the lock's connection. Not leading: tries to take the lock. */
  private async step(duties: Duties): Promise<void> {
    if (this.closed) return;
    if (this.client) {
      try {
        await this.client.query('SELECT 1');
        return;
      } catch (err) {
        this.log.warn(
          { reason: (err as Error).message },
          'lost the connection that holds the leader lock: stopping the watchdog, garbage collection and scheduled mirrors here',
        );
        await this.resign();
      }
    }
    // Keepalives both ways: a leader whose host vanishes (no FIN) is let go by the server within
    // seconds, not after the kernel's two hours; and a check that gets no answer fails in time.
    // Loaded here, not at start: a daemon on SQLite never needs the driver (start time, memory).
    const { default: driver } = await import('pg');
    const client = new driver.Client({
      connectionString: this.url,
      application_name: 'boxyard-leader',
      keepAlive: true,
      keepAliveInitialDelayMillis: 5000,
      query_timeout: this.retryMs,
      connectionTimeoutMillis: this.retryMs,
    });
    client.on('error', () => undefined); // reported by the next check
    try {
      await client.connect();
      await client.query('SET tcp_keepalives_idle = 5; SET tcp_keepalives_interval = 2; SET tcp_keepalives_count = 3');
      const got =
        (await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [ADVISORY_LOCKS.leader])).rows[0]
          ?.ok === true;
      if (!got) {
        await client.end();
        return;
      }
    } catch (err) {
      await client.end().catch(() => undefined);
      throw err;
    }
    this.client = client;
    try {
      this.stopDuties = await duties();
    } catch (err) {
      await this.resign();
      throw err;
    }
    this.log.info('this daemon leads: it runs the agent watchdog, garbage collection and scheduled mirrors');
  }

  private async resign(): Promise<void> {
    const stop = this.stopDuties;
    this.stopDuties = null;
    await stop?.().catch((err: unknown) => this.log.error({ err }, 'stopping the leader duties failed'));
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }
}
