import { statSync } from 'node:fs';
import { access, constants, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type SqliteDatabase from 'better-sqlite3';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../store/schema';
import type { DiskSpace } from '../blobs/disk-space';
import type { BlobStore } from '../blobs/blob-store';
import { humanBytes } from '../contract/bytes';
import type { Clock } from '../lib/clock';
import type { IntegrityCheck } from '../store/integrity';
import { DAMAGED_DATABASE_HINT, isDatabaseDamage } from '../store/storage-errors';
import { executeReadOnly } from '../store/cache/statement-tables';

export interface Check {
  /** `checking`: the start's database check still runs (healthy so far); `low`: below the disk reserve. */
  status: 'ok' | 'checking' | 'low' | 'failing';
  /** What is wrong and what to do, when it is not ok. */
  detail?: string;
}

export interface HealthReport {
  /**
   * `failing` (HTTP 503): the database or the blob folder cannot serve; `degraded`: uploads are refused for want of
   * space.
   */
  status: 'ok' | 'degraded' | 'failing';
  /**
   * `tls` with HTTPS on: a certificate that could not be renewed or reloaded (the one before is still served:
   * degraded).
   */
  checks: { database: Check; blobs: Check; disk: Check; tls?: Check };
}

/** One part of the report: the database, or where box files are kept. */
export type Probe = () => Promise<Check>;

export interface DataHealthDeps {
  database: Probe;
  blobs: Probe;
  space: DiskSpace;
  clock: Clock;
  /** With HTTPS on: whether the certificate source is well (tls/maintenance.ts). */
  tls?: () => { ok: boolean; message: string };
}

/** A report is reused for this long: `/healthz` may be asked many times a second, the disk is touched at most once. */
const FRESH_MS = 1000;
/** The probe file written and removed in uploads/ (a name garbage collection never takes for an upload). */
const PROBE = '.healthz-probe';

const failing = (detail: string): Check => ({ status: 'failing', detail });
const reason = (err: unknown) => (err as NodeJS.ErrnoException).code ?? (err as Error).message;

/**
 * What `/healthz` answers: the database, where box files are kept, and the disk's free space
 * against the reserve. Measured at most once a second (by the injected clock); requests in
 * between share the last report.
 */
export class DataHealth {
  private cached: { at: number; report: Promise<HealthReport> } | undefined;

  constructor(private readonly deps: DataHealthDeps) {}

  report(): Promise<HealthReport> {
    const now = this.deps.clock.now().getTime();
    if (this.cached && now >= this.cached.at && now - this.cached.at < FRESH_MS) return this.cached.report;
    const report = this.measure();
    this.cached = { at: now, report };
    return report;
  }

  private async measure(): Promise<HealthReport> {
    const [database, blobs, disk] = await Promise.all([this.deps.database(), this.deps.blobs(), this.disk()]);
    const t = this.deps.tls?.();
    const tls: Check | undefined = t && (t.ok ? { status: 'ok' } : { status: 'failing', detail: t.message });
    const status =
      database.status === 'failing' || blobs.status === 'failing'
        ? 'failing'
        : disk.status === 'low' || tls?.status === 'failing'
          ? 'degraded'
          : 'ok';
    return { status, checks: { database, blobs, disk, ...(tls ? { tls } : {}) } };
  }

  private async disk(): Promise<Check> {
    const reserve = this.deps.space.reserveBytes;
    if (reserve === 0) return { status: 'ok' };
    const free = await this.deps.space.free().catch(() => Infinity);
    if (free >= reserve) return { status: 'ok' };
    return {
      status: 'low',
      detail: `The data folder's disk has ${humanBytes(free)} free, less than the ${humanBytes(reserve)} kept in reserve (BOXYARD_DISK_RESERVE_MB): uploads, imports, mirror and cache downloads are refused; everything stored is still served.`,
    };
  }
}

/**
 * The SQLite database: the start's integrity check, a read, and the file still being the one
 * opened (replaced or deleted under a running daemon is a failure to report, not to serve through).
 */
export function sqliteDatabaseProbe(
  raw: SqliteDatabase.Database,
  databaseFile: string,
  integrity: IntegrityCheck,
): Probe {
  const inode = statSync(databaseFile).ino;
  const probe = raw.prepare('SELECT count(*) FROM schema_migrations').pluck();
  return async () => {
    const state = integrity.state;
    if (state.state === 'damaged') {
      return failing(
        `The database is damaged: PRAGMA quick_check reports ${state.problems.slice(0, 3).join('; ')}. ${DAMAGED_DATABASE_HINT}`,
      );
    }
    try {
      if ((await stat(databaseFile)).ino !== inode) {
        return failing(
          'The database file boxyard.db was replaced while the daemon runs: what it serves is no longer what is on disk. Restart the daemon.',
        );
      }
      probe.get();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        return failing(
          'The database file boxyard.db is gone from the data folder (deleted, or its disk unmounted). Stop the daemon and restore the data folder from a backup.',
        );
      }
      const what = isDatabaseDamage(err)
        ? `is damaged (${reason(err)}). ${DAMAGED_DATABASE_HINT}`
        : `cannot be read (${reason(err)}).`;
      return failing(`The database ${what}`);
    }
    return state.state === 'checking' ? { status: 'checking' } : { status: 'ok' };
  };
}

/** A probe that is ok when `ask` answers within `timeoutMs`, and fails saying `why` otherwise. */
function answersWithin(timeoutMs: number, ask: () => Promise<unknown>, why: (err: unknown) => string): Probe {
  return async () => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      await Promise.race([ask(), late]);
      return { status: 'ok' };
    } catch (err) {
      return failing(why(err));
    } finally {
      clearTimeout(timer);
    }
  };
}

/** A PostgreSQL database: one read through the pool answers within `timeoutMs`. */
export function postgresDatabaseProbe(db: Kysely<Database>, timeoutMs = 2000): Probe {
  return answersWithin(
    timeoutMs,
    () => executeReadOnly(sql`select count(*) from schema_migrations`, db),
    (err) =>
      `The PostgreSQL database cannot be read (${reason(err)}): check that it runs and that this daemon reaches it.`,
  );
}

/** The data folder's blobs/ and uploads/: present, and writable (a file is created and removed). */
export function folderBlobsProbe(dataDir: string): Probe {
  return async () => {
    const blobs = join(dataDir, 'blobs', 'sha256');
    const uploads = join(dataDir, 'uploads');
    for (const [dir, name] of [
      [blobs, 'blobs/sha256'],
      [uploads, 'uploads'],
    ]) {
      const s = await stat(dir).catch(() => null);
      if (!s?.isDirectory())
        return failing(
          `The folder ${name} is missing from the data folder (deleted, or its disk unmounted): stored box files cannot be served. Stop the daemon and restore the data folder from a backup.`,
        );
    }
    try {
      await access(blobs, constants.W_OK);
      const probe = join(uploads, PROBE);
      await writeFile(probe, '', { mode: 0o600 });
      await unlink(probe);
    } catch (err) {
      return failing(
        `The blob folder cannot be written (${reason(err)}): uploads and mirrors fail. Check the data folder's disk (read-only, or its owner and modes).`,
      );
    }
    return { status: 'ok' };
  };
}

/**
 * Box files in a bucket: a listing of the store's blobs starts (a HEAD of a missing key would need
 * s3:ListBucket to answer 404 rather than 403), so the store is reachable and lets us in.
 */
export function bucketProbe(store: Pick<BlobStore, 'list'>, timeoutMs = 5000): Probe {
  const firstBlob = async () => {
    const it = store.list()[Symbol.asyncIterator]();
    await it.next();
    await it.return?.();
  };
  return answersWithin(
    timeoutMs,
    firstBlob,
    (err) =>
      `The bucket holding box files cannot be reached (${(err as Error).message}): uploads, downloads and mirrors fail. Check the store, its address and the credentials.`,
  );
}
