import { chmod, mkdir, open } from 'node:fs/promises';
import { dirname } from 'node:path';
import writeFileAtomic from 'write-file-atomic';

/** Only the daemon's user may enter its private folders or read its private files (the data folder, TLS keys). */
export const PRIVATE_DIR = 0o700;
export const PRIVATE_FILE = 0o600;
/** A file other users' tools read (a certificate, a CA bundle, a record beside the keys): its owner alone writes it. */
export const SHARED_FILE = 0o644;

/**
 * Creates a folder (and its parents) owner-only, whatever the umask; an existing one is made
 * owner-only too. The rule for a folder the daemon owns outright (the data folder, its blobs):
 * it makes it private. tls/private-files.ts's `privateFolder` is the other rule, for folders that
 * hold keys: it refuses one found open, since keys already there may have been read.
 */
export async function privateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: PRIVATE_DIR });
  await chmod(dir, PRIVATE_DIR);
}

/** fsync of a file or a folder (a folder: so that the names created in it are durable). */
export async function fsyncPath(path: string): Promise<void> {
  const fh = await open(path, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/**
 * fsync of a folder, so that the names just created or renamed in it are durable. Not on Windows:
 * it opens a folder but refuses to flush one (FlushFileBuffers: EPERM), which would fail a write
 * already in place; there the rename is as durable as NTFS's own journal makes it.
 */
async function fsyncFolder(dir: string): Promise<void> {
  if (process.platform !== 'win32') await fsyncPath(dir);
}

/**
 * Writes `data` to `path` whole or not at all, the one way the daemon and its commands replace a
 * file in place: write-file-atomic writes a temporary file of a unique name beside it, fsyncs it,
 * gives it `mode` and renames it over `path`; then the folder is fsynced, so that the new name is
 * durable too. A crash at any point leaves the old file or the new one, never half of either. The
 * file belongs to whoever writes it (not to the old file's owner, write-file-atomic's default).
 *
 * `mode` is set exactly, whatever the umask or the old file's mode: private (0600) unless told,
 * `SHARED_FILE` for what others read. `'umask'`: as any file the process creates, 0666 less the
 * umask, a file written again keeping its mode (an export's JSON, beside files written so).
 */
export async function writeFileAtomically(
  path: string,
  data: string | Buffer,
  opts: { mode?: number | 'umask' } = {},
): Promise<void> {
  const mode = opts.mode ?? PRIVATE_FILE;
  // `chown: false` is write-file-atomic's documented "leave the owner alone"; its types leave it out.
  await writeFileAtomic(path, data, {
    mode: mode === 'umask' ? undefined : mode,
    fsync: true,
    chown: false as unknown as undefined,
  });
  await fsyncFolder(dirname(path));
}
