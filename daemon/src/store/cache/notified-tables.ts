import pg from 'pg';
import type { Logger } from 'pino';
import { retrying, type Backoff } from '../../lib/backoff';
import { TableMarks } from './table-clock';
import { WriteGraph, type SchemaFacts } from './write-graph';

/**
 * The channel every write transaction notifies, once per table it wrote, with the table's name (`*`: the schema
 * changed).
 */
export const TABLES_CHANNEL = 'boxyard_tables';
/** The statement trigger that notifies, on every table but those of UNNOTIFIED. */
export const NOTIFY_TRIGGER = 'boxyard_tables_notify';
/**
 * Tables no read cache reads, left without the trigger: `rate_limits` is written on every request
 * when request limits are on, and notifying every daemon of each would cost more than it tells.
 * NotifiedTables does not count them as tables, so a cache over one cannot be made.
 */
export const UNNOTIFIED = ['rate_limits', 'schema_migrations'];

/**
 * Gives every table of the schema the notifying trigger it lacks: run after the migrations, in
 * their transaction (store/postgres.ts), so that a table a migration adds notifies too.
 */
export const ENSURE_NOTIFY_TRIGGERS = `DO $$
DECLARE t record;
BEGIN
  CREATE OR REPLACE FUNCTION ${NOTIFY_TRIGGER}() RETURNS trigger LANGUAGE plpgsql AS $f$
  BEGIN PERFORM pg_notify('${TABLES_CHANNEL}', TG_TABLE_NAME); RETURN NULL; END $f$;
  FOR t IN SELECT c.oid, c.relname FROM pg_class c
    WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p')
      AND c.relname NOT IN (${UNNOTIFIED.map((n) => `'${n}'`).join(', ')})
      AND NOT EXISTS (SELECT 1 FROM pg_trigger g WHERE g.tgrelid = c.oid AND g.tgname = '${NOTIFY_TRIGGER}')
  LOOP
    EXECUTE format('CREATE TRIGGER ${NOTIFY_TRIGGER} AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION ${NOTIFY_TRIGGER}()', t.relname);
  END LOOP;
END $$`;

/**
 * The schema as PostgreSQL's catalog holds it: notified tables and views, foreign keys, triggers with their functions'
 * bodies.
 */
async function postgresFacts(client: pg.Client | pg.Pool): Promise<SchemaFacts> {
  const q = async <R extends pg.QueryResultRow>(text: string) => (await client.query<R>(text)).rows;
  const tables = await q<{
    name: string;
    kind: string;
    notified: boolean;
  }>(`SELECT c.relname AS name, c.relkind AS kind,
      EXISTS (SELECT 1 FROM pg_trigger g WHERE g.tgrelid = c.oid AND g.tgname = '${NOTIFY_TRIGGER}') AS notified
    FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p', 'v', 'm')`);
  const foreignKeys = await q<{
    child: string;
    parent: string;
  }>(`SELECT conrelid::regclass::text AS child, confrelid::regclass::text AS parent
    FROM pg_constraint WHERE contype = 'f' AND connamespace = current_schema()::regnamespace`);
  const triggers = await q<{
    table: string;
    head: string;
    body: string;
  }>(`SELECT c.relname AS table, pg_get_triggerdef(g.oid) AS head, p.prosrc AS body
    FROM pg_trigger g JOIN pg_class c ON c.oid = g.tgrelid JOIN pg_proc p ON p.oid = g.tgfoid
    WHERE NOT g.tgisinternal AND g.tgname <> '${NOTIFY_TRIGGER}' AND c.relnamespace = current_schema()::regnamespace`);
  return {
    // A table without the trigger is not one whose changes this daemon hears of: no cache may read it.
    tables: tables.filter((t) => t.notified || t.kind === 'v' || t.kind === 'm').map((t) => t.name),
    foreignKeys: foreignKeys.map((f) => ({
      child: f.child.replace(/^.*\./, ''),
      parent: f.parent.replace(/^.*\./, ''),
    })),
    triggers,
  };
}

/**
 * How old the listening connection's last answer may be while caches serve (`deadMs`), and how old it is when a read
 * asks for the next one ahead (`aheadMs`), so that reads under steady load never wait for one.
 */
export interface Liveness {
  aheadMs: number;
  deadMs: number;
}
const LIVENESS: Liveness = { aheadMs: 40, deadMs: 80 };
/** Listening again after a loss: 100 ms after it, then twice as long after each failed try, up to 5 s. */
const RELISTEN: Backoff = { firstMs: 100, maxMs: 5000 };

/** A `SELECT 1` on the listening connection: when it was sent, and when it was answered (or failed). */
interface Beat {
  sent: number;
  answered: Promise<void>;
  /** `answered`, or `deadMs` after `sent` if that comes first: what waiting reads wait for (made when one waits). */
  bounded?: Promise<void>;
}

/**
 * The read caches' clock on PostgreSQL (table-clock.ts). This daemon's own writes move their tables
 * on twice: when the statement runs, as on SQLite, and again when it commits (store/cache/
 * invalidation.ts), since on a pool a read on another connection may start between the two
 * and would otherwise keep what it read before the commit as fresh. Other daemons' writes arrive
 * as notifications: every table but UNNOTIFIED has a statement trigger that notifies TABLES_CHANNEL
 * with its name, delivered when the writing transaction commits, whoever wrote (a daemon, a
 * `boxyard` command, psql); one connection of this daemon listens. Caches serve only while that
 * connection's answer to a `SELECT 1` sent less than `deadMs` ago has come (every notification
 * committed before it was sent has been heard by then); else, or when the connection is lost,
 * they serve nothing and it reconnects. Once it listens again everything read before is dropped,
 * since notifications in between were lost. It tries again 100 ms after a loss or a failed try,
 * then after twice as long each time, up to 5 s.
 *
 * The `SELECT 1` is asked for by reads, not by a timer: a read that finds the last answer older
 * than `aheadMs` asks for the next one and is served; one that finds it older than `deadMs` waits
 * for the next answer (one for every read waiting, at most until `deadMs` after it was sent) rather
 * than loading. A timer asking every 25 ms cost an idle daemon 4% of a core (bench/README.md's `agents`
 * row); after a stall of the event loop, every read that had queued meanwhile went to the database.
 */
export class NotifiedTables extends TableMarks {
  private client: pg.Client | null = null;
  /** When the last `SELECT 1` answered was sent: every notification committed before it has been heard. */
  private confirmedAt = -Infinity;
  /** The `SELECT 1` asked and not yet answered. */
  private beat: Beat | null = null;
  /** Ends the retries when closed. */
  private readonly stop = new AbortController();

  private constructor(
    private readonly url: string,
    private readonly log: Logger | undefined,
    graph: WriteGraph,
    private readonly liveness: Liveness,
  ) {
    super(graph);
  }

  /**
   * Reads the schema through `pool`, then listens (a first failure is logged and retried, caches serving nothing
   * meanwhile).
   */
  static async open(pool: pg.Pool, url: string, log?: Logger, liveness = LIVENESS): Promise<NotifiedTables> {
    const clock = new NotifiedTables(url, log, new WriteGraph(await postgresFacts(pool)), liveness);
    await clock.listenOnce().catch((err: Error) => {
      void clock.listenAgain(err);
    });
    return clock;
  }

  get keeps(): boolean {
    return this.client !== null && performance.now() - this.confirmedAt < this.liveness.deadMs;
  }

  /** Whether caches serve now; asks for the next answer ahead when the last is older than `aheadMs`, or stale. */
  override vouches(): boolean {
    const age = performance.now() - this.confirmedAt;
    if (age >= this.liveness.aheadMs) this.ask();
    return this.client !== null && age < this.liveness.deadMs;
  }

  /** Whether caches serve once the answer asked for has come (waited for until `deadMs` after it was sent, at most). */
  override async confirm(): Promise<boolean> {
    const beat = this.ask();
    if (!beat) return false;
    beat.bounded ??= new Promise<void>((resolve) => {
      const giveUp = setTimeout(resolve, Math.max(0, this.liveness.deadMs - (performance.now() - beat.sent)));
      giveUp.unref();
      void beat.answered.then(() => {
        clearTimeout(giveUp);
        resolve();
      });
    });
    await beat.bounded;
    return this.keeps;
  }

  private get closed(): boolean {
    return this.stop.signal.aborted;
  }

  async close(): Promise<void> {
    this.stop.abort();
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  /** One try at listening; throws when it fails (or it was closed meanwhile). */
  private async listenOnce(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.url,
      application_name: 'boxyard-notify',
      keepAlive: true,
      keepAliveInitialDelayMillis: 5000,
      connectionTimeoutMillis: 5000,
      query_timeout: 5000,
    });
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client));
    client.on('notification', (n) => this.heard(n.payload ?? '*'));
    try {
      await client.connect();
      await client.query(`LISTEN ${TABLES_CHANNEL}`);
      // Read after LISTEN: a migration committed since is heard of, and the schema read is its own.
      await this.serveAfterReading(client);
    } catch (err) {
      await client.end().catch(() => undefined);
      throw err;
    }
  }

  /** Listening failed or was lost with `err`: tries again until it listens or is closed. */
  private async listenAgain(err: Error): Promise<void> {
    try {
      // The loss is the first failure: the first try comes RELISTEN's first wait after it.
      await retrying((attempt) => (attempt === 1 ? Promise.reject(err) : this.listenOnce()), {
        backoff: RELISTEN,
        unref: true,
        signal: this.stop.signal,
        onRetry: (e) =>
          this.log?.warn(
            { reason: e instanceof Error ? e.message : String(e) },
            "not hearing other daemons' writes: read caches serve nothing until listening again",
          ),
      });
      this.log?.info("listening for other daemons' writes again: read caches serve again");
    } catch {
      // Closed.
    }
  }

  private heard(payload: string): void {
    if (payload === '*') {
      void this.schemaChanged();
      return;
    }
    this.moveOn(this.graph.has(payload) ? this.graph.affectedBy(payload) : null);
  }

  /** Another daemon migrated: the schema is read again, caches serving nothing until then. */
  private async schemaChanged(): Promise<void> {
    const client = this.client;
    if (!client) return;
    this.client = null;
    this.forgetAll();
    try {
      await this.serveAfterReading(client);
    } catch (err) {
      // Also when closed meanwhile: lost() ends the connection, which close() no longer saw.
      this.client = client;
      this.lost(client, err as Error);
    }
  }

  /**
   * Reads the schema through the listening `client`, then serves again with nothing kept from
   * before: every notification committed before the read began has been heard. Throws once closed.
   */
  private async serveAfterReading(client: pg.Client): Promise<void> {
    const sent = performance.now();
    this.graph = new WriteGraph(await postgresFacts(client));
    if (this.closed) throw new Error('closed');
    this.forgetAll();
    this.client = client;
    this.confirmedAt = sent;
  }

  /** Asks the listening connection for a `SELECT 1`, unless one is asked already; null when there is none. */
  private ask(): Beat | null {
    const client = this.client;
    if (!client) return null;
    if (this.beat) return this.beat;
    const sent = performance.now();
    const beat: Beat = {
      sent,
      answered: client.query('SELECT 1').then(
        () => {
          if (this.client === client) this.confirmedAt = Math.max(this.confirmedAt, sent);
        },
        (err: Error) => this.lost(client, err),
      ),
    };
    this.beat = beat;
    void beat.answered.finally(() => {
      if (this.beat === beat) this.beat = null;
    });
    return beat;
  }

  private lost(client: pg.Client | null, err?: Error): void {
    if (!client || client !== this.client) return;
    this.client = null;
    this.beat = null;
    this.forgetAll();
    void client.end().catch(() => undefined);
    void this.listenAgain(err ?? new Error('the connection ended'));
  }
}
