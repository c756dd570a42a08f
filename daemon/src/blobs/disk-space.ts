import { statfs } from 'node:fs/promises';
import { Transform } from 'node:stream';
import { humanBytes } from '../contract/bytes';
import { InsufficientStorageError } from '../lib/errors';
import { FREE_SPACE_HINT } from '../store/storage-errors';

/** While a body streams in, free space is looked at again after every this many bytes. */
const RECHECK_EVERY = 64 * 1024 * 1024;

const MIB = 1024 * 1024;

/**
 * Free space on the disk of the data folder, against a reserve kept for the database and the
 * system: a write that would eat into the reserve is refused with 507 before it starts (when its
 * size is known) and while it streams (when it is not, or when other writes took the space).
 * Reads never look at it, so a full disk keeps serving catalogs and downloads.
 */
export class DiskSpace {
  constructor(
    private readonly dir: string,
    readonly reserveBytes: number,
  ) {}

  static fromMegabytes(dir: string, reserveMb: number): DiskSpace {
    return new DiskSpace(dir, reserveMb * MIB);
  }

  /** Bytes an unprivileged process may still write on the data folder's disk. */
  async free(): Promise<number> {
    return (await this.usage()).free;
  }

  /**
   * The data folder's disk: its size and what an unprivileged process may still write (the overview page shows both).
   */
  async usage(): Promise<{ free: number; total: number }> {
    const s = await statfs(this.dir);
    return { free: Number(s.bavail) * Number(s.bsize), total: Number(s.blocks) * Number(s.bsize) };
  }

  /** Throws InsufficientStorageError when `bytes` more would leave less than the reserve free. */
  async ensureRoom(bytes: number): Promise<void> {
    if (this.reserveBytes === 0) return;
    const free = await this.free();
    if (free - bytes >= this.reserveBytes) return;
    throw new InsufficientStorageError(this.refusal(bytes, free));
  }

  /**
   * A pass-through for a body of `size` bytes (undefined: unknown) that checks the room left on
   * its first chunk and after every 64 MiB, failing the stream once the reserve would be reached.
   */
  guard(size: number | undefined): Transform {
    let before = 0;
    let checkedAt = -Infinity;
    return new Transform({
      transform: (chunk: Buffer, _enc, cb) => {
        const offset = before;
        before += chunk.length;
        if (this.reserveBytes === 0 || offset - checkedAt < RECHECK_EVERY) return cb(null, chunk);
        checkedAt = offset;
        this.ensureRoom(size === undefined ? chunk.length : size - offset).then(() => cb(null, chunk), cb);
      },
    });
  }

  private refusal(bytes: number, free: number): string {
    const reserve = `${humanBytes(this.reserveBytes)} Boxyard keeps in reserve (BOXYARD_DISK_RESERVE_MB)`;
    const has = `the disk holding its data folder has ${humanBytes(Math.max(free, 0))} free`;
    const head =
      bytes > 0
        ? `Not enough free disk space: storing ${humanBytes(bytes)} needs ${humanBytes(bytes + this.reserveBytes)} free (the file plus the ${reserve}), and ${has}.`
        : `Not enough free disk space: ${has}, less than the ${reserve}.`;
    return `${head} Nothing was stored. ${FREE_SPACE_HINT}`;
  }
}
