import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BlobHolds, type BlobReferrer } from '../../daemon/src/blobs/holds';
import { randomIdGen } from '../../daemon/src/lib/ids';
import { openStore, type Store } from '../../daemon/src/store/db';
import { openPostgres } from '../../daemon/src/store/postgres';
import type { Database } from '../../daemon/src/store/schema';
import { backendFor } from '../helpers/backend';

/**
 * Garbage collection against a commit of the same content, on the pass's database:
 * SQLite, where one daemon shares one connection, or PostgreSQL, where two daemons each have a pool.
 */
let dir: string;
const stores: Store[] = [];
let a: Kysely<Database>;
let b: Kysely<Database>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'boxyard-holds-'));
  const { database } = await backendFor(dir);
  if (database) stores.push(await openPostgres(database), await openPostgres(database));
  else stores.push(openStore(join(dir, 'boxyard.db')));
  a = stores[0].db;
  b = stores[stores.length - 1].db;
});
afterAll(async () => {
  for (const s of stores) await s.close();
  rmSync(dir, { recursive: true, force: true });
});

const sha = (n: number) => n.toString(16).padStart(64, '0');
const nothing: BlobReferrer = { referencedBlobDigests: async () => new Set(), referencesBlob: async () => false };
const rows = (db: Kysely<Database>, sha256: string) =>
  db.selectFrom('blob_holds').selectAll().where('sha256', '=', sha256).execute();

describe('BlobHolds', () => {
  it('a commit that comes while a deletion runs waits until the deletion has ended', async () => {
    const collector = new BlobHolds(a, randomIdGen());
    const committer = new BlobHolds(b, randomIdGen());
    let removed = false;
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const collecting = collector.collect(sha(1), [nothing], async () => {
      await gate;
      removed = true;
      return true;
    });
    while ((await rows(a, sha(1))).length === 0) await sleep(5);
    const seen: boolean[] = [];
    const committing = committer.keep([sha(1)], async () => {
      seen.push(removed);
    });
    // Long enough for the commit to look several times; what it saw is checked, not when.
    await sleep(300);
    expect(seen).toEqual([]);
    release();
    expect(await collecting).toBe(true);
    await committing;
    expect(seen).toEqual([true]);
    expect(await rows(a, sha(1))).toEqual([]);
  });

  it('a blob kept by a commit, or referenced, is spared, and nothing is removed', async () => {
    const holds = new BlobHolds(a, randomIdGen());
    const other = new BlobHolds(b, randomIdGen());
    let calls = 0;
    const remove = async () => {
      calls++;
      return true;
    };
    const spared = await holds.keep([sha(2), sha(3)], async () => [
      await other.collect(sha(2), [nothing], remove),
      await other.collect(sha(3), [nothing], remove),
    ]);
    expect(spared).toEqual([false, false]);
    const referrer: BlobReferrer = {
      referencedBlobDigests: async () => new Set([sha(4)]),
      referencesBlob: async (s) => s === sha(4),
    };
    expect(await other.collect(sha(4), [nothing, referrer], remove)).toBe(false);
    expect(calls).toBe(0);
    expect(await other.collect(sha(5), [nothing, referrer], remove)).toBe(true);
    expect(calls).toBe(1);
    for (const n of [2, 3, 4, 5]) expect(await rows(a, sha(n))).toEqual([]);
  });

  it('releases its rows when the work fails', async () => {
    const holds = new BlobHolds(a, randomIdGen());
    await expect(
      holds.keep([sha(6)], async () => {
        throw new Error('commit failed');
      }),
    ).rejects.toThrow('commit failed');
    await expect(
      holds.collect(sha(6), [nothing], async () => {
        throw new Error('delete failed');
      }),
    ).rejects.toThrow('delete failed');
    expect(await rows(a, sha(6))).toEqual([]);
  });

  it('rows left by a process that died stop counting by the database clock, and are swept', async () => {
    const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
    await a
      .insertInto('blob_holds')
      .values([
        { holder: 'dead-collector', sha256: sha(7), kind: 'collect', created_at: ago(11 * 60_000) },
        { holder: 'dead-committer', sha256: sha(8), kind: 'keep', created_at: ago(25 * 3_600_000) },
        { holder: 'live-committer', sha256: sha(9), kind: 'keep', created_at: ago(23 * 3_600_000) },
      ])
      .execute();
    const holds = new BlobHolds(b, randomIdGen());
    expect(await holds.keep([sha(7)], async () => 'committed')).toBe('committed');
    expect(await holds.collect(sha(8), [nothing], async () => true)).toBe(true);
    expect(await holds.collect(sha(9), [nothing], async () => true)).toBe(false);
    expect(await holds.sweep()).toBe(2);
    expect([...(await rows(a, sha(7))), ...(await rows(a, sha(8)))]).toEqual([]);
    expect(await rows(a, sha(9))).toHaveLength(1);
  });

  it('many commits and deletions of the same digests at once: a referenced blob is never deleted', async () => {
    // The store and the references as two sets; a commit stores and references, a deletion removes.
    const stored = new Set<string>();
    const referenced = new Map<string, number>();
    const referrer: BlobReferrer = {
      referencedBlobDigests: async () => new Set(referenced.keys()),
      referencesBlob: async (s) => (referenced.get(s) ?? 0) > 0,
    };
    const violations: string[] = [];
    // A row pointing at a missing file is what must never be seen: looked for while referenced.
    const check = (s: string) => {
      if (!stored.has(s)) violations.push(s);
    };
    const commit = (h: BlobHolds, s: string) =>
      h.keep([s], async () => {
        stored.add(s);
        await sleep(Math.random() * 3);
        referenced.set(s, (referenced.get(s) ?? 0) + 1);
        check(s);
      });
    const drop = async (s: string) => {
      await sleep(Math.random() * 3);
      check(s);
      referenced.set(s, (referenced.get(s) ?? 1) - 1);
    };
    const collect = (h: BlobHolds, s: string) =>
      h.collect(s, [referrer], async () => {
        await sleep(Math.random() * 3);
        return stored.delete(s);
      });
    const one = new BlobHolds(a, randomIdGen());
    const two = new BlobHolds(b, randomIdGen());
    // Each worker starts its steps at random moments, so that every interleaving comes up.
    const worker = async (h: BlobHolds, step: (h: BlobHolds, s: string) => Promise<unknown>) => {
      for (let i = 0; i < 30; i++) {
        await sleep(Math.random() * 4);
        await step(h, sha(100 + (i % 2)));
      }
    };
    await Promise.all([
      worker(one, (h, s) => commit(h, s).then(() => drop(s))),
      worker(two, (h, s) => commit(h, s).then(() => drop(s))),
      worker(one, collect),
      worker(two, collect),
      worker(two, collect),
    ]);
    await Promise.all([commit(one, sha(100)), commit(two, sha(101))]);
    expect(violations).toEqual([]);
    for (const [s, n] of referenced) if (n > 0) expect(stored.has(s)).toBe(true);
  });
});
