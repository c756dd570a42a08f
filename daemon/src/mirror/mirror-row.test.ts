import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type SqliteStore } from '../store/db';
import { MIRROR_ROW_DEFAULTS, mirrorRow, nextRunAt } from './mirror-row';

const now = new Date('2026-03-01T10:00:00.000Z');
const origin = { id: 'mir1', upstreamId: 'ups1', userId: 'u1', now };

describe('mirrorRow', () => {
  let dir: string;
  let store: SqliteStore;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'boxyard-mirror-row-'));
    store = openStore(join(dir, 'db.sqlite'));
  });
  afterAll(async () => {
    await store.close();
    store.raw.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('gives a request that says nothing the defaults the columns of migrations 006 and 018 have', () => {
    const at = now.toISOString();
    store.raw
      .prepare(
        "INSERT INTO upstreams (id, name, name_key, kind, url, created_at, updated_at) VALUES ('ups1', 'u', 'u', 'registry', 'https://up.example', ?, ?)",
      )
      .run(at, at);
    store.raw
      .prepare(
        "INSERT INTO mirrors (id, upstream_id, source, target, created_at, updated_at) VALUES ('bare', 'ups1', 'a/b', 'a/b', ?, ?)",
      )
      .run(at, at);
    const bare = store.raw.prepare("SELECT * FROM mirrors WHERE id = 'bare'").get() as Record<string, unknown>;
    const keys = Object.keys(MIRROR_ROW_DEFAULTS) as Array<keyof typeof MIRROR_ROW_DEFAULTS>;
    expect(Object.fromEntries(keys.map((k) => [k, bare[k]]))).toEqual(MIRROR_ROW_DEFAULTS);
    const row = mirrorRow({ source: 'a/b' }, origin);
    expect(Object.fromEntries(keys.map((k) => [k, row[k]]))).toEqual(MIRROR_ROW_DEFAULTS);
    expect(row).toMatchObject({
      target: 'a/b',
      versions: null,
      latest: null,
      interval_minutes: null,
      retain: null,
      next_run_at: null,
      paused: null,
      runs_as: 'u1',
      created_by: 'u1',
    });
  });

  it("takes the request's values, and its schedule's first run from nextRunAt", () => {
    const row = mirrorRow(
      {
        source: 'acme',
        target: 'here',
        providers: ['libvirt'],
        architectures: ['arm64'],
        private: false,
        follow_revocations: true,
        parallel: 9,
        interval_minutes: 90,
        retain: 3,
        latest: 2,
      },
      origin,
    );
    expect(row).toMatchObject({
      id: 'mir1',
      upstream_id: 'ups1',
      source: 'acme',
      target: 'here',
      providers: '["libvirt"]',
      architectures: '["arm64"]',
      visibility: 'public',
      follow_revocations: 1,
      parallel: 9,
      interval_minutes: 90,
      retain: 3,
      latest: 2,
      next_run_at: '2026-03-01T11:30:00.000Z',
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    });
    expect(mirrorRow({ source: 'a/b', private: true }, origin).visibility).toBe('private');
    expect(mirrorRow({ source: 'a/b', private: null }, origin).visibility).toBe('upstream');
  });
});

describe('nextRunAt', () => {
  it('counts the interval from now, and has no next run without one', () => {
    expect(nextRunAt(1, now)).toBe('2026-03-01T10:01:00.000Z');
    expect(nextRunAt(525_600, now)).toBe('2027-03-01T10:00:00.000Z');
    expect(nextRunAt(null, now)).toBeNull();
  });
});
