import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { relative, resolve, sep } from 'node:path';
import { writeFileAtomically } from '../../lib/private-files';

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
 * Writes an export's JSON (a catalog, the manifest) whole or not at all (lib/private-files.ts), so
 * a reader never sees half of it, even after a crash. Its mode is the umask's, as the box files
 * beside it: an export is for others to read (a file written again keeps its mode).
 */
export async function writeJsonAtomic(path: string, doc: unknown): Promise<void> {
  await writeFileAtomically(path, `${JSON.stringify(doc, null, 2)}\n`, { mode: 'umask' });
}
