import { chmodSync, closeSync, existsSync, fchmodSync, mkdirSync, openSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PRIVATE_DIR, PRIVATE_FILE } from '../lib/private-files';

/** Folders every data folder has (the blob store's layout: blobs/fs-blob-store.ts). */
const FOLDERS = ['blobs', join('blobs', 'sha256'), 'uploads'];
/**
 * `--tls auto`'s CA (tls/local-ca.ts) is not tightened but refused when loose: its key may have
 * been read already, and the user must know (and may want a new CA).
 */
const CHECKED_ELSEWHERE = new Set(['tls']);

export interface PreparedDataFolder {
  /** Files and folders whose modes were tightened (an older version's data folder). */
  tightened: number;
}

const loose = (mode: number, wanted: number) => (mode & 0o777 & ~wanted) !== 0;

/** chmod when the mode grants more than `wanted`; true when it did. */
function tighten(path: string, mode: number, wanted: number): boolean {
  if (!loose(mode, wanted)) return false;
  chmodSync(path, wanted);
  return true;
}

/** Every folder 0700 and file 0600 below `dir` (symbolic links are left alone); how many changed. */
function tightenTree(dir: string, top = dir): number {
  let changed = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (CHECKED_ELSEWHERE.has(e.name) && dir === top) continue;
    if (e.isDirectory()) {
      changed += Number(tighten(path, statSync(path).mode, PRIVATE_DIR));
      changed += tightenTree(path, top);
    } else if (e.isFile()) {
      changed += Number(tighten(path, statSync(path).mode, PRIVATE_FILE));
    }
  }
  return changed;
}

/**
 * The data folder holds password hashes, token hashes and the key of the two-factor secrets:
 * it is created 0700, its SQLite database (none on PostgreSQL) is created 0600 before SQLite opens it (SQLite gives the
 * -wal and -shm files the database's mode), and modes are set explicitly, whatever the umask.
 *
 * A folder left readable by an older version is tightened at start: the folder and what sits at
 * its top always (a few calls); the whole tree (every blob) only when one of those was loose, so
 * a start after that pays for no walk. A shared folder (sticky bit, as /tmp) or another user's is
 * not changed itself, only what Boxyard keeps in it.
 */
export function prepareDataFolder(dataDir: string, databaseFile: string | null): PreparedDataFolder {
  mkdirSync(dataDir, { recursive: true, mode: PRIVATE_DIR });
  const own = statSync(dataDir);
  const mine = process.getuid === undefined || own.uid === process.getuid();
  let changed = mine && (own.mode & 0o1000) === 0 ? Number(tighten(dataDir, own.mode, PRIVATE_DIR)) : 0;
  for (const f of FOLDERS) {
    const path = join(dataDir, f);
    if (!existsSync(path)) mkdirSync(path, { mode: PRIVATE_DIR });
    changed += Number(tighten(path, statSync(path).mode, PRIVATE_DIR));
  }
  if (databaseFile && !existsSync(databaseFile)) {
    // An empty file is an empty database; created here so that its mode is ours, not SQLite's 0644.
    const fd = openSync(databaseFile, 'a', PRIVATE_FILE);
    try {
      fchmodSync(fd, PRIVATE_FILE);
    } finally {
      closeSync(fd);
    }
  }
  for (const e of readdirSync(dataDir, { withFileTypes: true })) {
    if (CHECKED_ELSEWHERE.has(e.name)) continue;
    const path = join(dataDir, e.name);
    const st = statSync(path);
    // Another user's file is theirs to guard: a secret.key mounted read-only by a container runtime.
    const ours = process.getuid === undefined || st.uid === process.getuid();
    if (ours && (e.isFile() || e.isDirectory()))
      changed += Number(tighten(path, st.mode, e.isFile() ? PRIVATE_FILE : PRIVATE_DIR));
  }
  if (changed > 0) changed += tightenTree(dataDir);
  return { tightened: changed };
}
