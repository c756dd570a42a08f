import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { relative, resolve, sep } from 'node:path';
import writeFileAtomic from 'write-file-atomic';

/** Reads a file once in 1 MiB reads, hashing it with each algorithm; memory does not grow with it. */
export async function hashFile(
  path: string,
  algorithms: string[] = ['sha256'],
  onBytes: (n: number) => void = () => {},
): Promise<{ size: number; digests: Record<string, string> }> {
  const hashes = algorithms.map((a) => createHash(a));
  let size = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: 1024 * 1024 })) {
    const b = chunk as Buffer;
    for (const h of hashes) h.update(b);
    size += b.length;
    onBytes(b.length);
  }
  return { size, digests: Object.fromEntries(algorithms.map((a, i) => [a, hashes[i].digest('hex')])) };
}

/** `rel` resolved under `root`, or null when it would leave it (`../`, an absolute path). */
export function inside(root: string, rel: string): string | null {
  const path = resolve(root, rel);
  const back = relative(root, path);
  return back === '' || back.startsWith('..') || resolve(root, back) !== path ? null : path;
}

/** A path relative to `root` with `/` separators, as a manifest records it on every platform. */
export const manifestPath = (root: string, path: string): string => relative(root, path).split(sep).join('/');

/**
 * Writes JSON through a temporary file of its own, fsynced, and a rename (write-file-atomic), so a
 * reader never sees half of it, even after a crash. A file written again keeps its mode.
 */
export async function writeJsonAtomic(path: string, doc: unknown): Promise<void> {
  await writeFileAtomic(path, `${JSON.stringify(doc, null, 2)}\n`, { fsync: true });
}
