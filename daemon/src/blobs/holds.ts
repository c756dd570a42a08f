import type { Kysely, NotNull, SelectQueryBuilder } from 'kysely';
import { setTimeout as sleep } from 'node:timers/promises';
import type { IdGen } from '../lib/ids';
import type { Database } from '../store/schema';
import { databaseNow } from '../store/dialect';
import { inTransaction } from '../store/transaction';

/** Whoever points rows at blobs: garbage collection keeps what any of them references. */
export interface BlobReferrer {
  /** Every digest it references now. */
  referencedBlobDigests(): Promise<Set<string>>;
  /** Whether it references `sha256`, read through `db` (the collector's transaction). */
  referencesBlob(sha256: string, db: Kysely<Database>): Promise<boolean>;
}

/**
 * The referrer whose rows `holding` selects, read through the database it is given: each row's
 * digest as `sha256`, null where the row holds no blob. Both questions read it as a subquery,
 * which SQLite and PostgreSQL flatten, so the digest comparison stays a plain WHERE on its column
 * (and its index).
 */
export function blobReferrer<TB extends keyof Database>(
  db: Kysely<Database>,
  holding: (db: Kysely<Database>) => SelectQueryBuilder<Database, TB, { sha256: string | null }>,
): BlobReferrer {
  return {
    async referencedBlobDigests() {
      const rows = await db
        .selectFrom(holding(db).as('held'))
        .select('held.sha256')
        .distinct()
        .where('held.sha256', 'is not', null)
        .$narrowType<{ sha256: NotNull }>()
        .execute();
      return new Set(rows.map((r) => r.sha256));
    },
    async referencesBlob(sha256, trx) {
      const row = await trx
        .selectFrom(holding(trx).as('held'))
        .select('held.sha256')
        .where('held.sha256', '=', sha256)
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },
  };
}

/**
 * A deletion takes one call to the store (seconds, with the S3 client's retries): a `collect` row
 * older than this was left by a process that died. A commit of that digest waits until then.
 */
const COLLECT_STALE_MS = 10 * 60_000;
/** A commit may copy a large object for many minutes: a `keep` row is taken for dead after a day. */
const KEEP_STALE_MS = 24 * 3_600_000;
/** How often a commit looks again while a deletion of its digest runs. */
const WAIT_STEP_MS = 50;

/**
 * Garbage collection against a commit of the same content, on one daemon or several sharing a
 * database (migration 017). A commit, or a reuse of a stored blob, `keep`s its digests while it
 * stores the file and points its rows at it; the collector deletes a blob only under a `collect`
 * row, taken in a transaction that found no `keep` row and no reference. So a blob is either
 * kept, or gone before the commit stores it again: never deleted under a row that points at it.
 * Time plays no part in this except to recognise the rows of a process that died, and that time
 * is the database's: daemons' clocks may differ.
 */
export class BlobHolds {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly ids: IdGen,
  ) {}

  /** Runs `fn` (store the file, point a row at it) while garbage collection leaves `digests` alone. */
  async keep<T>(digests: string[], fn: () => Promise<T>): Promise<T> {
    const held = [...new Set(digests)];
    if (held.length === 0) return fn();
    const id = this.ids.id('hold');
    while (!(await this.tryKeep(id, held))) await sleep(WAIT_STEP_MS);
    try {
      return await fn();
    } finally {
      await this.db.deleteFrom('blob_holds').where('holder', '=', id).execute();
    }
  }

  /**
   * Garbage collection of one blob: when nothing keeps it and no referrer references it, runs
   * `remove` (which deletes it) with commits of that digest waiting; false when it was spared.
   */
  async collect(sha256: string, referrers: BlobReferrer[], remove: () => Promise<boolean>): Promise<boolean> {
    const id = this.ids.id('hold');
    const marked = await inTransaction(this.db, async (trx) => {
      const now = await databaseNow(trx);
      const kept = await trx
        .selectFrom('blob_holds')
        .select('holder')
        .where('sha256', '=', sha256)
        .where('kind', '=', 'keep')
        .where('created_at', '>', ago(now, KEEP_STALE_MS))
        .executeTakeFirst();
      if (kept) return false;
      for (const r of referrers) if (await r.referencesBlob(sha256, trx)) return false;
      await trx
        .insertInto('blob_holds')
        .values({ holder: id, sha256, kind: 'collect', created_at: now.toISOString() })
        .execute();
      return true;
    });
    if (!marked) return false;
    try {
      return await remove();
    } finally {
      await this.db.deleteFrom('blob_holds').where('holder', '=', id).execute();
    }
  }

  /** Removes the rows of processes that died; the count. */
  async sweep(): Promise<number> {
    const now = await databaseNow(this.db);
    const r = await this.db
      .deleteFrom('blob_holds')
      .where((eb) =>
        eb.or([
          eb.and([eb('kind', '=', 'keep'), eb('created_at', '<=', ago(now, KEEP_STALE_MS))]),
          eb.and([eb('kind', '=', 'collect'), eb('created_at', '<=', ago(now, COLLECT_STALE_MS))]),
        ]),
      )
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  /** Takes the `keep` row unless a live deletion of one of the digests is under way. */
  private tryKeep(id: string, digests: string[]): Promise<boolean> {
    return inTransaction(this.db, async (trx) => {
      const now = await databaseNow(trx);
      const collecting = await trx
        .selectFrom('blob_holds')
        .select('holder')
        .where('sha256', 'in', digests)
        .where('kind', '=', 'collect')
        .where('created_at', '>', ago(now, COLLECT_STALE_MS))
        .executeTakeFirst();
      if (collecting) return false;
      await trx
        .insertInto('blob_holds')
        .values(digests.map((sha256) => ({ holder: id, sha256, kind: 'keep' as const, created_at: now.toISOString() })))
        .execute();
      return true;
    });
  }
}

const ago = (now: Date, ms: number): string => new Date(now.getTime() - ms).toISOString();
