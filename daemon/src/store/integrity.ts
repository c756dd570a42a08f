import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { DAMAGED_DATABASE_HINT } from './storage-errors';

export type IntegrityState =
  | { state: 'not-started' }
  | { state: 'checking' }
  | { state: 'ok'; ms: number }
  | { state: 'damaged'; problems: string[] }
  /** The check itself could not run (not a verdict on the database). */
  | { state: 'unchecked'; reason: string };

/** Start stops here: the database is damaged. Says what SQLite found and what to do. */
export class DatabaseDamagedError extends Error {
  constructor(
    readonly file: string,
    readonly problems: string[],
  ) {
    const shown = problems.slice(0, 3).join('; ') + (problems.length > 3 ? `; and ${problems.length - 3} more` : '');
    super(`The database ${file} is damaged (${shown}). ${DAMAGED_DATABASE_HINT}`);
    this.name = 'DatabaseDamagedError';
  }
}

/** At most this many problems are listed (quick_check's own limit). */
const MAX_PROBLEMS = 20;

// CommonJS run with `eval` (the bundle needs no separate worker file), on its own read-only
// connection: WAL lets it read while the daemon writes. better-sqlite3 is loaded from the path the
// daemon resolved, so it is the same native module wherever the daemon runs from.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const started = Date.now();
try {
  const Database = require(workerData.lib);
  const db = new Database(workerData.file, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    const lines = db.prepare('PRAGMA quick_check(' + workerData.max + ')').pluck().all();
    parentPort.postMessage({ lines, ms: Date.now() - started });
  } finally { db.close(); }
} catch (err) {
  const damaged = err && (err.code === 'SQLITE_CORRUPT' || err.code === 'SQLITE_NOTADB');
  parentPort.postMessage(damaged ? { lines: [String(err.message)], ms: Date.now() - started } : { error: String(err && err.message || err) });
}`;

/**
 * SQLite's `PRAGMA quick_check` of the database, run at start on a worker thread. It reads every
 * page, so it costs time in proportion to the file (measured: 81 MB, 10,000 boxes × 10 versions,
 * ~170-260 ms with the file in the page cache, ~700-900 ms from a cold disk): start waits for it
 * at most `waitMs` (300 ms by default: a cold start of that database stays under a second), and a
 * damaged database found by then stops the start; a larger or colder file goes on being checked
 * while the daemon serves, and `/healthz` reports what it finds.
 */
export class IntegrityCheck {
  private current: IntegrityState = { state: 'not-started' };
  private worker: Worker | undefined;
  private stopping = false;
  /** Settles with the verdict once the check has finished (or could not run). */
  done: Promise<IntegrityState> = Promise.resolve(this.current);

  constructor(
    private readonly file: string,
    private readonly log: Logger,
  ) {}

  get state(): IntegrityState {
    return this.current;
  }

  /** Starts the check and waits for it up to `waitMs`; throws DatabaseDamagedError when it found damage by then. */
  async start(waitMs: number): Promise<void> {
    this.current = { state: 'checking' };
    this.done = new Promise<IntegrityState>((resolve) => {
      const settle = (s: IntegrityState) => {
        if (this.current.state !== 'checking') return;
        this.current = s;
        this.worker = undefined;
        this.report(s);
        resolve(s);
      };
      const lib = createRequire(import.meta.url).resolve('better-sqlite3');
      const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { lib, file: this.file, max: MAX_PROBLEMS } });
      this.worker = worker;
      worker.once('message', (m: { lines?: string[]; ms?: number; error?: string }) => {
        if (m.error !== undefined) settle({ state: 'unchecked', reason: m.error });
        else if (m.lines?.length === 1 && m.lines[0] === 'ok') settle({ state: 'ok', ms: m.ms ?? 0 });
        else settle({ state: 'damaged', problems: m.lines ?? [] });
      });
      worker.once('error', (err) => settle({ state: 'unchecked', reason: err.message }));
      worker.once('exit', () => settle({ state: 'unchecked', reason: 'the check was stopped' }));
    });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const waited = await Promise.race([
      this.done,
      new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), waitMs);
      }),
    ]);
    clearTimeout(timer);
    if (waited === undefined)
      this.log.info(
        { waitedMs: waitMs },
        'database check (PRAGMA quick_check) goes on while the daemon serves; /healthz reports it',
      );
    if (waited?.state === 'damaged') throw new DatabaseDamagedError(this.file, waited.problems);
  }

  /** Ends a check still running (the daemon is stopping). */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.worker?.terminate();
  }

  private report(s: IntegrityState): void {
    if (this.stopping) return;
    if (s.state === 'damaged')
      this.log.error({ problems: s.problems }, new DatabaseDamagedError(this.file, s.problems).message);
    else if (s.state === 'unchecked')
      this.log.warn({ reason: s.reason }, 'the database check (PRAGMA quick_check) could not run');
    else if (s.state === 'ok') this.log.debug({ ms: s.ms }, 'database check passed');
  }
}
