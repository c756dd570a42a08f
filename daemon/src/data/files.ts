import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { readdir, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fsyncPath, PRIVATE_FILE, privateDir } from '../lib/private-files';

/*
 * File helpers of backup, restore and check (hashing a file alone: mirror/cli/files.ts hashFile).
 * Every file is read in 1 MiB chunks and hashed as it goes by, so memory stays flat however large
 * a box is. Everything written is owner-only (folders 0700, files 0600): a data folder holds
 * password hashes and the key of the two-factor secrets.
 */

const CHUNK = 1024 * 1024;

export interface Hashed {
  sha256: string;
  size: number;
}

/**
 * Copies `from` to a new file `to` (never over an existing one), owner-only, hashing the bytes as
 * they pass, and fsyncs it: on return the copy is durable and its digest is the digest of what was
 * written. Its folder is created owner-only.
 */
export async function copyHashed(from: string, to: string): Promise<Hashed> {
  await privateDir(dirname(to));
  const h = createHash('sha256');
  let size = 0;
  const tap = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      h.update(chunk);
      size += chunk.length;
      cb(null, chunk);
    },
  });
  await pipeline(
    createReadStream(from, { highWaterMark: CHUNK }),
    tap,
    createWriteStream(to, { flags: 'wx', mode: PRIVATE_FILE, highWaterMark: CHUNK }),
  );
  await fsyncPath(to);
  return { sha256: h.digest('hex'), size };
}

/** fsync of every folder under `root`, then `root`: the names of the files copied into them are durable. */
export async function fsyncTree(root: string): Promise<void> {
  for (const entry of await readdir(root, { withFileTypes: true })) {
    if (entry.isDirectory()) await fsyncTree(join(root, entry.name));
  }
  await fsyncPath(root);
}

/** 'missing', 'empty', or the names it holds (a few, for the message). */
export async function folderState(dir: string): Promise<'missing' | 'empty' | { holds: string[] }> {
  const s = await stat(dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return null;
    throw err;
  });
  if (!s) return 'missing';
  if (!s.isDirectory()) return { holds: [dir] };
  const names = await readdir(dir);
  return names.length === 0 ? 'empty' : { holds: names.sort() };
}

/**
 * A folder a command writes into: must be missing or empty. Returns how to put it back as it was
 * found (removed when it was missing, emptied when it was empty) after a failure.
 */
export async function claimEmptyFolder(dir: string, what: string): Promise<() => Promise<void>> {
  const state = await folderState(dir);
  if (typeof state === 'object') {
    const shown = state.holds.slice(0, 5).join(', ') + (state.holds.length > 5 ? ', …' : '');
    throw new Error(`${what} ${dir} is not empty (it holds ${shown}). Choose an empty or new folder.`);
  }
  await privateDir(dir);
  return async () => {
    if (state === 'missing') {
      await rm(dir, { recursive: true, force: true });
      return;
    }
    for (const name of await readdir(dir)) await rm(join(dir, name), { recursive: true, force: true });
  };
}

/** Whether a path exists (a file or a folder). */
export async function exists(path: string): Promise<boolean> {
  return (await stat(path).catch(() => null)) !== null;
}
