import { readdir, rename, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { inside } from '../mirror/cli/files';
import { damageOf, openDataDb } from './database';
import { fsyncPath } from '../lib/private-files';
import { claimEmptyFolder, copyHashed, fsyncTree, type Hashed } from './files';
import { BACKUP_MANIFEST, isBlobEntry, readManifest, type BackupFile, type BackupManifest } from './manifest';
import { DataRepository } from './repository';

export interface RestoreOptions {
  src: string;
  dataDir: string;
  /** The database file the daemon will open (config.ts databaseFile). */
  databaseFile: string;
}

export interface RestoreSummary {
  files: number;
  bytes: number;
  blobs: number;
  /** When the backup was taken, and by which Boxyard. */
  createdAt: string;
  version: string;
}

/** Where the files are copied and verified before they take their places. */
const STAGING = '.restoring';

/**
 * Restores a backup (backup.ts) into an empty or missing data folder. Every file is copied and
 * hashed in one pass into a staging folder inside it and compared with the manifest; then the
 * database must pass SQLite's quick check and every blob it names must be among the files. Only
 * then do the files take their places, the database last. Anything wrong leaves the data folder
 * as it was found, with a message that says what.
 */
export async function restore(opts: RestoreOptions): Promise<RestoreSummary> {
  const manifest = await readManifest(opts.src);
  const dbName = basename(opts.databaseFile);
  for (const f of manifest.files) refuseForeign(f, manifest, dbName, opts.src);
  const undo = await claimEmptyFolder(opts.dataDir, 'The data folder');
  const staging = join(opts.dataDir, STAGING);
  try {
    for (const f of manifest.files)
      await copyVerified(f, opts.src, join(staging, f.path === manifest.database ? dbName : f.path));
    await verifyDatabase(join(staging, dbName), manifest, opts.src);
    await fsyncTree(staging);
    await moveIntoPlace(staging, opts.dataDir, dbName);
  } catch (err) {
    await undo().catch(() => undefined);
    throw err;
  }
  const blobs = manifest.files.filter((f) => isBlobEntry(f.path));
  return {
    files: manifest.files.length,
    bytes: manifest.files.reduce((n, f) => n + f.size, 0),
    blobs: blobs.length,
    createdAt: manifest.created_at,
    version: manifest.boxyard_version,
  };
}

const damaged = (src: string, what: string) =>
  new Error(`The backup ${src} is damaged: ${what}. Nothing was restored; use another backup.`);

/** Names a backup never writes: SQLite's own files beside the database (a -wal would be replayed into it), ours. */
function refuseForeign(f: BackupFile, m: BackupManifest, dbName: string, src: string): void {
  const dbFiles = [dbName, m.database].flatMap((n) => [`${n}-wal`, `${n}-shm`, `${n}-journal`]);
  if (
    dbFiles.includes(f.path) ||
    f.path === BACKUP_MANIFEST ||
    f.path === STAGING ||
    (f.path === dbName && m.database !== dbName)
  ) {
    throw damaged(src, `its manifest lists ${f.path}, which no Boxyard backup holds`);
  }
  if (isBlobEntry(f.path) && basename(f.path) !== f.sha256)
    throw damaged(src, `its manifest records the sha256 of ${f.path} as ${f.sha256}`);
}

async function copyVerified(f: BackupFile, src: string, to: string): Promise<void> {
  const from = inside(src, f.path);
  if (!from) throw damaged(src, `its manifest names ${f.path}, outside the backup`);
  let got: Hashed;
  try {
    got = await copyHashed(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' && (err as NodeJS.ErrnoException).path === from)
      throw damaged(src, `${f.path} is missing`);
    throw err;
  }
  if (got.size !== f.size) throw damaged(src, `${f.path} holds ${got.size} bytes, the manifest records ${f.size}`);
  if (got.sha256 !== f.sha256)
    throw damaged(src, `the sha256 of ${f.path} is ${got.sha256}, the manifest records ${f.sha256}`);
}

/** The database is intact and every blob it names was restored. */
async function verifyDatabase(file: string, m: BackupManifest, src: string): Promise<void> {
  const db = openDataDb(file, { readonly: false });
  try {
    const damage = damageOf(db.raw);
    if (damage.length) throw damaged(src, `its database fails SQLite's check (${damage.slice(0, 3).join('; ')})`);
    const held = new Set(m.files.filter((f) => isBlobEntry(f.path)).map((f) => f.sha256));
    const missing = (await new DataRepository(db.db).references()).find((r) => !held.has(r.sha256));
    if (missing)
      throw damaged(src, `the ${missing.label} names the blob ${missing.sha256}, which the backup does not hold`);
  } finally {
    await db.close();
  }
}

/** Everything from the staging folder into the data folder, the database last, then durable. */
async function moveIntoPlace(staging: string, dataDir: string, dbName: string): Promise<void> {
  for (const name of await readdir(staging))
    if (name !== dbName) await rename(join(staging, name), join(dataDir, name));
  await rename(join(staging, dbName), join(dataDir, dbName));
  await rm(staging, { recursive: true, force: true });
  await fsyncPath(dataDir);
}
