import { PassThrough, Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { extract } from 'tar-stream';
import {
  BOX_FILE_WORDS,
  BoxMetadataError,
  MAX_METADATA_BYTES,
  parseBoxMetadata,
  type BoxMetadata,
} from '../../contract/box-metadata';

export { BoxMetadataError, type BoxMetadata };

/** `vagrant package` writes `./metadata.json`, Packer `metadata.json`: both are the top-level file. */
const isMetadataEntry = (name: string): boolean => name.replace(/^(\.\/)+/, '') === 'metadata.json';

async function collect(entry: AsyncIterable<unknown>, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const raw of entry) {
    const chunk = raw as Buffer;
    size += chunk.length;
    if (size > limit) throw new BoxMetadataError(BOX_FILE_WORDS.tooLarge);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** The stream with its first bytes looked at: gzip (magic 1f 8b) is unpacked on the way. */
async function unpacked(stream: Readable): Promise<Readable> {
  const it = stream[Symbol.asyncIterator]();
  let head = Buffer.alloc(0);
  while (head.length < 2) {
    const r = await it.next();
    if (r.done) break;
    head = Buffer.concat([head, r.value as Buffer]);
  }
  const whole = Readable.from(
    (async function* () {
      if (head.length) yield head;
      for (let r = await it.next(); !r.done; r = await it.next()) yield r.value as Buffer;
    })(),
    { objectMode: false },
  );
  if (head[0] !== 0x1f || head[1] !== 0x8b) return whole;
  const gunzip = createGunzip();
  void pipeline(whole, gunzip).catch(() => {
    /* reported by the reader of gunzip */
  });
  return gunzip;
}

/**
 * Reads `metadata.json` from a `.box` (a tar, maybe gzipped) and stops reading once it is found:
 * the rest is never read (a disk image can be gigabytes) and the stream is destroyed. Rejects with
 * BoxMetadataError when the stream is not a tar or has no metadata.json.
 */
export async function readBoxMetadata(stream: Readable): Promise<BoxMetadata> {
  const tar = extract();
  let source: Readable | undefined;
  try {
    source = await unpacked(stream);
    source.on('error', (err) => tar.destroy(err));
    source.pipe(tar as unknown as NodeJS.WritableStream);
    for await (const entry of tar) {
      if (entry.header.type === 'file' && isMetadataEntry(entry.header.name))
        return parseBoxMetadata(await collect(entry, MAX_METADATA_BYTES));
      entry.resume();
    }
  } catch (err) {
    if (err instanceof BoxMetadataError) throw err;
    throw new BoxMetadataError(`${BOX_FILE_WORDS.notTar} (${(err as Error).message})`);
  } finally {
    source?.unpipe();
    source?.destroy();
    stream.destroy();
    tar.destroy();
  }
  throw new BoxMetadataError(BOX_FILE_WORDS.noMetadata);
}

/**
 * A pass-through for a box being stored that also reads its metadata.json in the same pass, so
 * the file is never read twice. Once the reader is done (found, or failed) the bytes only pass
 * through; until then the reader's pace holds the stream back instead of buffering it.
 */
export function boxMetadataTap(): { tap: Transform; metadata: Promise<BoxMetadata> } {
  const sink = new PassThrough({ highWaterMark: 1024 * 1024 });
  let open = true;
  let waiting: (() => void) | null = null;
  const release = () => {
    const w = waiting;
    waiting = null;
    w?.();
  };
  const close = () => {
    if (!open) return;
    open = false;
    sink.destroy();
    release();
  };
  const metadata = readBoxMetadata(sink).finally(close);
  // Awaited only after the write succeeded; a failed write must not leave an unhandled rejection.
  metadata.catch(() => {});
  let ended = false;
  const tap = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      if (!open || sink.write(chunk)) return cb(null, chunk);
      waiting = () => cb(null, chunk);
      sink.once('drain', release);
    },
    flush(cb) {
      ended = true;
      if (open) sink.end();
      cb();
    },
    // A consumer may destroy the tap once it has read it all (an async iterator does, as the S3
    // store's upload reads it): the reader then still finishes what the sink holds.
    destroy(err, cb) {
      if (err || !ended) close();
      cb(err);
    },
  });
  return { tap, metadata };
}
