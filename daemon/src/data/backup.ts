import { readdir, rm, chmod } from 'node:fs/promises';
import { basename, isAbsolute, join, relative, resolve } from 'node:path';
import { FsBlobStore } from '../blobs/fs-blob-store';
import { hashFile } from '../mirror/cli/files';
import { VERSION } from '../version';
import { damageOf, openDataDb, type DataDb } from './database';
import { PRIVATE_FILE } from '../lib/private-files';
import { DAMAGED_DATABASE_HINT } from '../store/storage-errors';
import { claimEmptyFolder, copyHashed, fsyncTree, type Hashed } from './files';
import { blobEntry, writeManifest, type BackupFile } from './manifest';
import { DataRepository } from './repository';

export interface BackupOptions {
  dataDir: string;
  /** The database file in it (config.ts databaseFile). */
  databaseFile: string;
  dest: string;
  /**
   * Told after each database snapshot, before its blobs are copied (the CLI says so; a test races the collector there).
   */
  onSnapshot?: (attempt: number) => Promise<void> | void;
  /** Snapshots to try before giving up on a data folder whose blobs keep going away (5). */
  attempts?: number;
}

export interface BackupSummary {
  files: number;
  bytes: number;
  blobs: number;
  /** Database snapshots taken: more than one when the collector removed a blob meanwhile. */
  snapshots: number;
  /** Top-level entries not copied, with why. */
  skipped: string[];
}

/** Top-level folders a backup leaves out, and why (everything else at the top must be a file to copy). */
const LEFT_OUT: Record<string, string> = {
  blobs: '',
  uploads: 'uploads in progress and partial mirror downloads (they start again)',
  quarantine: 'blobs `boxyard check --repair` moved aside',
};

/**
 * A consistent copy of a data folder while the daemon serves it (docs/operations-and-security.md,
 * "Backup, restore and check"). Order matters:
 * 1. top-level files (the key that encrypts two-factor secrets, settings): a key exists before any
 *    row encrypted with it, so copying it first never pairs a database with an older key;
 * 2. the database, by SQLite's online backup API: one snapshot, whatever the daemon writes;
 * 3. the blobs that snapshot names. Blobs are immutable and named by content, so a copy taken after
 *    the snapshot is the blob the snapshot meant. One can be gone, though: its rows deleted after
 *    the snapshot and the collector run. Then the backup takes a new snapshot (already copied
 *    blobs stay) until every blob it names was copied;
 * 4. the manifest (every file's size and sha256), written last: a backup that stopped half-way
 *    has none, and restore refuses it. A failure removes what was written.
 */
export async function backup(opts: BackupOptions): Promise<BackupSummary> {
  const inData = relative(resolve(opts.dataDir), resolve(opts.dest));
  if (inData === '' || (!inData.startsWith('..') && !isAbsolute(inData)))
    throw new Error(
      `The backup folder ${opts.dest} is inside the data folder ${opts.dataDir}: choose a folder outside it (another disk, ideally).`,
    );
  // Opening takes no snapshot yet (step 2 does); it says so at once when DIR holds no database.
  const live = openDataDb(opts.databaseFile, { readonly: true });
  let undo = async () => {};
  try {
    undo = await claimEmptyFolder(opts.dest, 'The backup folder');
    const files: BackupFile[] = [];
    const skipped = await copyTopLevelFiles(opts, files);
    const { snapshots, blobs } = await copyConsistent(opts, live);
    const dbName = basename(opts.databaseFile);
    files.push({ path: dbName, ...(await hashedAs(join(opts.dest, dbName))) });
    for (const [sha256, size] of blobs) files.push({ path: blobEntry(sha256), sha256, size });
    await fsyncTree(opts.dest);
    await writeManifest(opts.dest, {
      format: 'boxyard-backup',
      format_version: 1,
      boxyard_version: VERSION,
      created_at: new Date().toISOString(),
      database: dbName,
      files,
    });
    return { files: files.length, bytes: files.reduce((n, f) => n + f.size, 0), blobs: blobs.size, snapshots, skipped };
  } catch (err) {
    await undo().catch(() => undefined);
    throw err;
  } finally {
    await live.close();
  }
}

async function hashedAs(path: string): Promise<Hashed> {
  const { size, digests } = await hashFile(path);
  return { size, sha256: digests.sha256 };
}

/** Regular files at the top of the data folder but the database's own (its WAL is in the snapshot). */
async function copyTopLevelFiles(opts: BackupOptions, into: BackupFile[]): Promise<string[]> {
  const dbName = basename(opts.databaseFile);
  const skipped: string[] = [];
  for (const entry of await readdir(opts.dataDir, { withFileTypes: true })) {
    const name = entry.name;
    if (name === dbName || name.startsWith(`${dbName}-`)) continue;
    if (entry.isDirectory() && name in LEFT_OUT) {
      if (LEFT_OUT[name]) skipped.push(`${name}/: ${LEFT_OUT[name]}`);
      continue;
    }
    if (!entry.isFile() || !/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(name)) {
      skipped.push(`${name}: not a plain file of Boxyard's`);
      continue;
    }
    into.push({ path: name, ...(await copyHashed(join(opts.dataDir, name), join(opts.dest, name))) });
  }
  return skipped;
}

/** Steps 2 and 3: snapshots until one whose every blob was copied. */
async function copyConsistent(
  opts: BackupOptions,
  live: DataDb,
): Promise<{ snapshots: number; blobs: Map<string, number> }> {
  const source = new FsBlobStore(opts.dataDir);
  const target = new FsBlobStore(opts.dest);
  const copied = new Map<string, number>();
  for (let attempt = 1; ; attempt++) {
    const names = await snapshot(live, join(opts.dest, basename(opts.databaseFile)));
    await opts.onSnapshot?.(attempt);
    const gone: string[] = [];
    for (const sha256 of names) {
      if (copied.has(sha256)) continue;
      const got = await copyBlob(source.blobPath(sha256), target.blobPath(sha256), opts.dataDir);
      if (got === null) gone.push(sha256);
      else copied.set(sha256, got.size);
    }
    if (!gone.length) {
      // Blobs an earlier snapshot named and this one does not: not part of the backup.
      for (const sha256 of copied.keys())
        if (!names.has(sha256)) {
          await rm(target.blobPath(sha256));
          copied.delete(sha256);
        }
      return { snapshots: attempt, blobs: copied };
    }
    await failIfStillNamed(live, gone, opts.dataDir);
    if (attempt >= (opts.attempts ?? 5)) {
      throw new Error(
        `Blobs kept disappearing while ${opts.dataDir} was copied (${attempt} tries): boxes are being deleted faster than a backup completes. Run the backup again at a quieter time.`,
      );
    }
  }
}

/**
 * SQLite's online backup into `file` (all pages in one step, so a concurrent write cannot restart it), checked; the
 * digests it names.
 */
async function snapshot(live: DataDb, file: string): Promise<Set<string>> {
  await rm(file, { force: true });
  await live.raw.backup(file, { progress: ({ totalPages }) => Math.max(totalPages, 100) });
  await chmod(file, PRIVATE_FILE);
  const copy = openDataDb(file, { readonly: false });
  try {
    // One self-contained file (the daemon turns WAL on again when it opens it).
    copy.raw.pragma('journal_mode = DELETE');
    const damage = damageOf(copy.raw);
    if (damage.length) {
      throw new Error(
        `The database ${live.raw.name} is damaged (${damage.slice(0, 3).join('; ')}), so a backup of it would be too. ${DAMAGED_DATABASE_HINT}`,
      );
    }
    return await new DataRepository(copy.db).referencedDigests();
  } finally {
    // In DELETE mode no -wal or -shm stays beside the copy once it is closed.
    await copy.close();
  }
}

/** Copies one blob, verifying its content against its name; null when it is not (any more) there. */
async function copyBlob(from: string, to: string, dataDir: string): Promise<Hashed | null> {
  let got: Hashed;
  try {
    got = await copyHashed(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || (err as NodeJS.ErrnoException).path !== from) throw err;
    await rm(to, { force: true });
    return null;
  }
  if (got.sha256 !== basename(from)) {
    throw new Error(
      `The blob ${basename(from)} in ${dataDir} is corrupt (its content hashes to ${got.sha256}). Run boxyard check --data ${dataDir} --repair, then back up again.`,
    );
  }
  return got;
}

/** A missing blob the live database still names is damage, not a race with the collector: say so. */
async function failIfStillNamed(live: DataDb, gone: string[], dataDir: string): Promise<void> {
  const refs = await new DataRepository(live.db).references();
  const blobs = new FsBlobStore(dataDir);
  for (const sha256 of gone) {
    const ref = refs.find((r) => r.sha256 === sha256);
    if (ref && !(await blobs.stat(sha256))) {
      throw new Error(
        `The ${ref.label} names the blob ${sha256}, which is missing from ${dataDir}. Run boxyard check --data ${dataDir} --repair, then back up again.`,
      );
    }
  }
}
