import { mkdtempSync, rmSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { InsufficientStorageError } from '../lib/errors';
import { DiskSpace } from './disk-space';

const MIB = 1024 * 1024;
const dir = mkdtempSync(join(tmpdir(), 'boxyard-space-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The real free space of the folder's disk (what statfs says now). */
const freeNow = () => {
  const s = statfsSync(dir);
  return s.bavail * s.bsize;
};

/** Counts how often the real disk is asked; the answers are the disk's own. */
class CountingSpace extends DiskSpace {
  calls = 0;
  override async free(): Promise<number> {
    this.calls++;
    return super.free();
  }
}

/** `n` chunks of 1 MiB through the guard into nowhere. */
const stream = (guard: NodeJS.ReadWriteStream, n: number) => {
  const chunk = Buffer.alloc(MIB);
  return pipeline(
    Readable.from(
      (function* () {
        for (let i = 0; i < n; i++) yield chunk;
      })(),
    ),
    guard,
    new Writable({ write: (_c, _e, cb) => cb() }),
  );
};

describe('DiskSpace', () => {
  it("reads the free space of the folder's disk", async () => {
    const free = await new DiskSpace(dir, 0).free();
    expect(Math.abs(free - freeNow())).toBeLessThan(256 * MIB);
  });

  it('lets a write through that leaves the reserve free, and refuses one that would not', async () => {
    await new DiskSpace(dir, MIB).ensureRoom(MIB);
    await new DiskSpace(dir, 0).ensureRoom(Number.MAX_SAFE_INTEGER);
    const tight = new DiskSpace(dir, freeNow() + 1024 * MIB);
    const err = await tight.ensureRoom(3 * MIB).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InsufficientStorageError);
    expect((err as Error).message).toMatch(
      /^Not enough free disk space: storing 3\.0 MiB needs [\d.]+ [GT]iB free \(the file plus the [\d.]+ [GT]iB Boxyard keeps in reserve \(BOXYARD_DISK_RESERVE_MB\)\), and the disk holding its data folder has [\d.]+ [GMT]iB free\. Nothing was stored\. /,
    );
  });

  it('looks again every 64 MiB while a body streams, and not in between', async () => {
    const space = new CountingSpace(dir, 1);
    await stream(space.guard(200 * MIB), 200);
    // At 0, 64, 128 and 192 MiB.
    expect(space.calls).toBe(4);
  });

  it('fails the stream once the reserve would be reached', async () => {
    const space = new CountingSpace(dir, freeNow() + 1024 * MIB);
    await expect(stream(space.guard(undefined), 3)).rejects.toBeInstanceOf(InsufficientStorageError);
    expect(space.calls).toBe(1);
  });

  it('never asks the disk with no reserve', async () => {
    const space = new CountingSpace(dir, 0);
    await stream(space.guard(undefined), 70);
    await space.ensureRoom(MIB);
    expect(space.calls).toBe(0);
  });
});
