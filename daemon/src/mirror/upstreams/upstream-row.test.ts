import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type SqliteStore } from '../../store/db';
import { UPSTREAM_DEFAULTS } from '../../contract/bodies/mirror';
import { upstreamRow } from './upstream-row';

const now = new Date('2026-03-01T10:00:00.000Z');
const origin = { id: 'ups1', name: 'Up There', createdBy: null, restricted: 0, now };

describe('upstreamRow', () => {
  let dir: string;
  let store: SqliteStore;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'boxyard-upstream-row-'));
    store = openStore(join(dir, 'db.sqlite'));
  });
  afterAll(async () => {
    await store.close();
    store.raw.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('gives a request that says nothing the defaults the columns of migration 006 have', () => {
    const at = now.toISOString();
    store.raw
      .prepare(
        "INSERT INTO upstreams (id, name, name_key, kind, url, created_at, updated_at) VALUES ('bare', 'u', 'u', 'registry', 'https://up.example', ?, ?)",
      )
      .run(at, at);
    const bare = store.raw.prepare("SELECT * FROM upstreams WHERE id = 'bare'").get() as Record<string, unknown>;
    const keys = Object.keys(UPSTREAM_DEFAULTS) as Array<keyof typeof UPSTREAM_DEFAULTS>;
    expect(Object.fromEntries(keys.map((k) => [k, bare[k]]))).toEqual(UPSTREAM_DEFAULTS);
    const row = upstreamRow({ url: 'https://up.example/' }, origin);
    expect(Object.fromEntries(keys.map((k) => [k, row[k]]))).toEqual(UPSTREAM_DEFAULTS);
    expect(row.failures).toBe(bare.failures);
    expect(row).toMatchObject({
      name_key: 'up there',
      kind: 'registry',
      token: null,
      ca: null,
      paused_until: null,
      last_error: null,
      created_by: null,
    });
  });

  it("takes the request's values, a pause of 0 minutes included", () => {
    const row = upstreamRow(
      { url: '/srv/export', token: 't', timeout_seconds: 7, max_failures: 1, pause_minutes: 0 },
      { ...origin, createdBy: 'u1', restricted: 1 },
    );
    expect(row).toMatchObject({
      kind: 'folder',
      token: 't',
      timeout_seconds: 7,
      max_failures: 1,
      pause_minutes: 0,
      created_by: 'u1',
      restricted: 1,
    });
  });
});
