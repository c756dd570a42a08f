import { InsufficientStorageError, InternalError } from '../lib/errors';

export const FREE_SPACE_HINT =
  'Free space on that disk (delete boxes or versions nobody uses, or move the data folder to a larger disk), then try again.';

/** What to do about a damaged database, in every message that reports one. */
export const DAMAGED_DATABASE_HINT =
  'Stop the daemon, keep a copy of the data folder as it is, run `boxyard check --data DIR` to see what is affected, and restore the last backup into a new folder (`boxyard restore --data NEWDIR BACKUP`).';

const errnoOf = (err: unknown): string | undefined => (err as NodeJS.ErrnoException | undefined)?.code;

/** SQLite's answers for a database file that is not (or no longer) a sound database. */
export function isDatabaseDamage(err: unknown): boolean {
  const code = errnoOf(err);
  return (
    code === 'SQLITE_CORRUPT' ||
    code === 'SQLITE_NOTADB' ||
    code === 'SQLITE_CORRUPT_INDEX' ||
    code === 'SQLITE_CORRUPT_SEQUENCE' ||
    code === 'SQLITE_CORRUPT_VTAB'
  );
}

/**
 * A file-system or SQLite error that says the disk is full, as the 507 clients act on: ENOSPC or
 * EDQUOT from a write, SQLITE_FULL from the database (which rolls the statement back, so nothing
 * is half-written). Undefined for any other error.
 */
export function diskFullError(err: unknown): InsufficientStorageError | undefined {
  const code = errnoOf(err);
  if (code === 'SQLITE_FULL') {
    return new InsufficientStorageError(
      `The disk holding Boxyard's data folder is full: the database could not record the change, and nothing was changed. ${FREE_SPACE_HINT}`,
    );
  }
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    return new InsufficientStorageError(
      `The disk holding Boxyard's data folder is full: the file could not be written, and nothing was stored. ${FREE_SPACE_HINT}`,
    );
  }
  return undefined;
}

/**
 * A request (or CLI command) that failed on a damaged database: still a 500, but saying what is wrong and what to do.
 */
export function damagedDatabaseError(err: unknown): InternalError | undefined {
  if (!isDatabaseDamage(err)) return undefined;
  return new InternalError(
    `Boxyard's database is damaged (${errnoOf(err)}: ${(err as Error).message}), so this could not be done. ${DAMAGED_DATABASE_HINT}`,
  );
}

/** A unique index rejected the row (SQLite or PostgreSQL): a racing duplicate, answered as a conflict. */
export function isUniqueViolation(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505';
}
