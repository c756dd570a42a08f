import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../lib/clock';
import type { BlobStore } from './blob-store';
import { BlobCollector } from './collector';
import { FsBlobStore } from './fs-blob-store';
import type { UploadRepository } from './uploads/repository';
import type { BlobHolds } from './holds';

/** The upload sessions' side of a collection: none (what the blob store holds is under test). */
const noSessions = {
  reopenReceiving: async () => 0,
  deleteFinished: async () => 0,
  liveIds: async () => new Set<string>(),
} as unknown as UploadRepository;
/** Holds that only sweep: no blob is collected in these tests. */
const holds = { sweep: async () => 0 } as unknown as BlobHolds;

describe('BlobCollector: stale multipart uploads', () => {
  let dir: string;
  let logged: Array<{ level: number; msg: string; multipart?: number }>;
  let log: pino.Logger;
  const clock = new ManualClock(new Date('2026-06-01T12:00:00Z'));
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'boxyard-collector-'));
    logged = [];
    log = pino(
      { level: 'info' },
      {
        write: (line: string) => {
          logged.push(JSON.parse(line));
        },
      },
    );
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** The file store, with a sweeper as an S3 store has. */
  function storeSweeping(sweep: (olderThan: Date) => Promise<number>): BlobStore {
    const fs = new FsBlobStore(dir);
    return Object.assign(Object.create(fs) as FsBlobStore, { sweepMultipart: sweep });
  }

  it('aborts those older than 24 hours, or than the grace when it is longer, and counts them', async () => {
    const cutoffs: Date[] = [];
    const store = storeSweeping(async (olderThan) => {
      cutoffs.push(olderThan);
      return 3;
    });
    const collector = new BlobCollector({ blobs: store, uploads: noSessions, referrers: [], holds, clock, log });
    expect(await collector.run({ graceMs: 0 })).toEqual({ blobs: [], uploads: [], sessions: 0, multipart: 3 });
    await collector.run({ graceMs: 48 * 3_600_000 });
    expect(cutoffs).toEqual([new Date('2026-05-31T12:00:00Z'), new Date('2026-05-30T12:00:00Z')]);
    expect(logged.find((l) => l.msg === 'garbage collected')).toMatchObject({ multipart: 3 });
  });

  it('collects blobs still when the store cannot list its multipart uploads, with a warning', async () => {
    const store = storeSweeping(async () => {
      throw new Error('S3 ListMultipartUploads … failed: NotImplemented');
    });
    const collector = new BlobCollector({ blobs: store, uploads: noSessions, referrers: [], holds, clock, log });
    expect(await collector.run({ graceMs: 0 })).toEqual({ blobs: [], uploads: [], sessions: 0, multipart: 0 });
    expect(logged).toContainEqual(
      expect.objectContaining({ level: 40, msg: 'stale multipart uploads could not be swept' }),
    );
  });

  it('sweeps nothing on a store without multipart uploads', async () => {
    const collector = new BlobCollector({
      blobs: new FsBlobStore(dir),
      uploads: noSessions,
      referrers: [],
      holds,
      clock,
      log,
    });
    expect((await collector.run({ graceMs: 0 })).multipart).toBe(0);
  });
});
