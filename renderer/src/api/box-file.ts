import {
  BOX_FILE_WORDS,
  BoxMetadataError,
  MAX_METADATA_BYTES,
  parseBoxMetadata,
  type BoxMetadata,
} from '../../../daemon/src/contract/box-metadata';

/**
 * Reads a chosen `.box` file's metadata.json in the browser, before anything is sent, so the form
 * can show what the file says. Only the tar's headers are looked at on the way: the data of other
 * entries (a libvirt box made by Packer puts its disk image first) is passed over, and the reading
 * stops at metadata.json. What its bytes say is the contract's (`parseBoxMetadata`, the daemon's
 * import reads with the same). Rejects with BoxMetadataError.
 */
export async function readBoxFile(file: Blob): Promise<BoxMetadata> {
  const head = new Uint8Array(await file.slice(0, 2).arrayBuffer());
  const gzipped = head[0] === 0x1f && head[1] === 0x8b;
  const stream = gzipped ? file.stream().pipeThrough(new DecompressionStream('gzip')) : file.stream();
  const bytes = new ByteReader(stream.getReader());
  try {
    return await findMetadata(bytes);
  } catch (e) {
    if (e instanceof BoxMetadataError) throw e;
    throw new BoxMetadataError(BOX_FILE_WORDS.notTar);
  } finally {
    bytes.cancel();
  }
}

const BLOCK = 512;

/** `vagrant package` writes `./metadata.json`, Packer `metadata.json`: both are the top-level file. */
const isMetadataEntry = (name: string): boolean => name.replace(/^(\.\/)+/, '') === 'metadata.json';

async function findMetadata(bytes: ByteReader): Promise<BoxMetadata> {
  for (;;) {
    // A tar may end after any entry without its two zero blocks (the daemon's reader, tar-stream, allows it too).
    if (await bytes.atEnd()) throw new BoxMetadataError(BOX_FILE_WORDS.noMetadata);
    const header = await bytes.take(BLOCK);
    if (!header) throw new BoxMetadataError(BOX_FILE_WORDS.notTar);
    if (header.every((b) => b === 0)) throw new BoxMetadataError(BOX_FILE_WORDS.noMetadata);
    const entry = parseHeader(header);
    const padded = Math.ceil(entry.size / BLOCK) * BLOCK;
    if (entry.file && isMetadataEntry(entry.name)) {
      if (entry.size > MAX_METADATA_BYTES) throw new BoxMetadataError(BOX_FILE_WORDS.tooLarge);
      const data = await bytes.take(entry.size);
      if (!data) throw new BoxMetadataError(BOX_FILE_WORDS.notTar);
      return parseBoxMetadata(data);
    }
    if (!(await bytes.skip(padded))) throw new BoxMetadataError(BOX_FILE_WORDS.notTar);
  }
}

const text = (b: Uint8Array, from: number, length: number): string => {
  const field = b.subarray(from, from + length);
  const end = field.indexOf(0);
  return new TextDecoder().decode(end < 0 ? field : field.subarray(0, end));
};

/** A numeric field: octal digits, or base-256 (GNU, for sizes past 8 GiB) when its first byte's high bit is set. */
function numberAt(b: Uint8Array, from: number, length: number): number {
  const field = b.subarray(from, from + length);
  if (field[0] & 0x80) return field.subarray(1).reduce((n, byte) => n * 256 + byte, field[0] & 0x7f);
  const digits = text(b, from, length).trim();
  if (!/^[0-7]*$/.test(digits)) throw new BoxMetadataError(BOX_FILE_WORDS.notTar);
  return digits ? Number.parseInt(digits, 8) : 0;
}

/** A ustar (or old tar) header, its checksum checked: a file that is not a tar fails here. */
function parseHeader(b: Uint8Array): { name: string; size: number; file: boolean } {
  const sum = b.reduce((n, byte, i) => n + (i >= 148 && i < 156 ? 32 : byte), 0);
  if (numberAt(b, 148, 8) !== sum) throw new BoxMetadataError(BOX_FILE_WORDS.notTar);
  const prefix = text(b, 345, 155);
  const name = text(b, 0, 100);
  const type = String.fromCharCode(b[156]);
  return {
    name: prefix && text(b, 257, 6) === 'ustar' ? `${prefix}/${name}` : name,
    size: numberAt(b, 124, 12),
    file: type === '0' || type === '\0',
  };
}

/** Exact reads and skips over a stream of chunks. */
class ByteReader {
  private chunk: Uint8Array = new Uint8Array(0);
  constructor(private readonly reader: ReadableStreamDefaultReader<Uint8Array>) {}

  /** The next `n` bytes, or null when the stream ends first. */
  async take(n: number): Promise<Uint8Array | null> {
    const out = new Uint8Array(n);
    let filled = 0;
    while (filled < n) {
      if (!(await this.fill())) return null;
      const part = this.chunk.subarray(0, n - filled);
      out.set(part, filled);
      filled += part.length;
      this.chunk = this.chunk.subarray(part.length);
    }
    return out;
  }

  /** Passes over `n` bytes; false when the stream ends first. */
  async skip(n: number): Promise<boolean> {
    let left = n;
    while (left > 0) {
      if (!(await this.fill())) return false;
      const step = Math.min(left, this.chunk.length);
      this.chunk = this.chunk.subarray(step);
      left -= step;
    }
    return true;
  }

  /** Whether the stream has no byte left. */
  async atEnd(): Promise<boolean> {
    return !(await this.fill());
  }

  private async fill(): Promise<boolean> {
    while (this.chunk.length === 0) {
      const r = await this.reader.read();
      if (r.done) return false;
      this.chunk = r.value;
    }
    return true;
  }

  cancel(): void {
    this.reader.cancel().catch(() => {});
  }
}
