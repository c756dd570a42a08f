import { createHash, type Hash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { BoxyardClient } from './client';
import { hashFile } from './files';
import type { ExportFile } from '../export/plan';
import { isDigestAlgorithm } from '../../blobs/blob-store';

export interface Downloaded {
  size: number;
  sha256: string;
  resumed: number;
  reused: boolean;
}

function algorithmsFor(f: ExportFile): string[] {
  const t = f.checksum_type?.toLowerCase();
  return t && f.checksum && isDigestAlgorithm(t) && t !== 'sha256' ? ['sha256', t] : ['sha256'];
}

/**
 * The digest that disagrees with the catalog's checksum; undefined when they agree (a file without a
 * checksum agrees with anything).
 */
function mismatch(f: ExportFile, digests: Record<string, string>): string | undefined {
  const t = f.checksum_type?.toLowerCase();
  if (!f.checksum || !t || !isDigestAlgorithm(t)) return undefined;
  return digests[t] === f.checksum.toLowerCase() ? undefined : digests[t];
}

/** Hashes a .part's kept bytes from disk, so a resumed file is verified as a whole. */
async function kept(part: string, hashes: Hash[]): Promise<number> {
  const s = await stat(part).catch(() => null);
  if (!s?.isFile() || s.size === 0) return 0;
  for await (const chunk of createReadStream(part, { highWaterMark: 1024 * 1024 }))
    for (const h of hashes) h.update(chunk as Buffer);
  return s.size;
}

/**
 * Fetches the file into `dest.part` (resuming with Range when one is there), checks its size and
 * the catalog's checksum, and renames it to `dest`. A complete `dest` from an earlier run that
 * still checks out is kept. `onProgress` hears how many bytes of the file are in hand.
 */
export async function downloadFile(
  client: BoxyardClient,
  f: ExportFile,
  dest: string,
  onProgress: (bytes: number) => void,
): Promise<Downloaded> {
  const algorithms = algorithmsFor(f);
  let seen = 0;
  const onBytes = (n: number) => {
    seen += n;
    onProgress(seen);
  };
  const done = await stat(dest).catch(() => null);
  if (done?.isFile() && (f.size === null || done.size === f.size)) {
    const { size, digests } = await hashFile(dest, algorithms, onBytes);
    if (mismatch(f, digests) === undefined) return { size, sha256: digests.sha256, resumed: 0, reused: true };
    seen = 0;
  }
  await mkdir(dirname(dest), { recursive: true });
  const part = `${dest}.part`;
  let hashes = algorithms.map((a) => createHash(a));
  let offset = await kept(part, hashes);
  let res = await client.fetch(f.url, { headers: offset ? { range: `bytes=${offset}-` } : {} });
  if (offset && (res.status !== 206 || !res.headers.get('content-range')?.startsWith(`bytes ${offset}-`))) {
    // The server ignored the range (200) or the part is no prefix of the file (416): start over.
    await res.body?.cancel();
    hashes = algorithms.map((a) => createHash(a));
    offset = 0;
    res = await client.fetch(f.url);
  }
  if (!res.ok || !res.body)
    throw new Error(
      `GET ${f.url}: ${res.status}; the file of ${f.box} ${f.version} ${f.provider} could not be fetched.`,
    );
  onBytes(offset);
  let size = offset;
  const tap = new Transform({
    transform(chunk: Buffer, _e, cb) {
      for (const h of hashes) h.update(chunk);
      size += chunk.length;
      onBytes(chunk.length);
      cb(null, chunk);
    },
  });
  await pipeline(
    Readable.fromWeb(res.body as WebReadableStream),
    tap,
    createWriteStream(part, { flags: offset ? 'a' : 'w' }),
  );
  const digests = Object.fromEntries(algorithms.map((a, i) => [a, hashes[i].digest('hex')]));
  if (f.size !== null && size !== f.size) {
    await rm(part, { force: true });
    throw new Error(
      `${f.url} sent ${size} bytes, but announced ${f.size}. The partial file was removed; run the export again.`,
    );
  }
  const wrong = mismatch(f, digests);
  if (wrong !== undefined) {
    // A wrong part would be resumed forever: it goes.
    await rm(part, { force: true });
    throw new Error(
      `Checksum mismatch for ${f.box} ${f.version} ${f.provider}/${f.architecture}: its ${f.checksum_type} is ${wrong}, the catalog says ${f.checksum}. The file was removed; run the export again.`,
    );
  }
  await rename(part, dest);
  return { size, sha256: digests.sha256, resumed: offset, reused: false };
}
