import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type SqliteStore } from '../store/db';
import { RegistryRepository } from './repository';

let dir: string;
let store: SqliteStore;
const at = '2026-01-01T00:00:00.000Z';

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'boxyard-registry-repo-'));
  store = openStore(join(dir, 'db.sqlite'));
  const raw = store.raw;
  raw
    .prepare(
      "INSERT INTO users (id, username, username_key, password_hash, created_at, updated_at) VALUES ('u1', 'ann', 'ann', 'x', ?, ?)",
    )
    .run(at, at);
  const box = raw.prepare(
    "INSERT INTO boxes (id, user_id, name, name_key, created_at, updated_at) VALUES (?, 'u1', ?, ?, ?, ?)",
  );
  const version = raw.prepare(
    'INSERT INTO box_versions (id, box_id, version, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const provider = raw.prepare(
    'INSERT INTO box_providers (id, version_id, name, architecture, default_architecture, created_at, updated_at) VALUES (?, ?, ?, ?, 1, ?, ?)',
  );
  for (const b of ['a', 'b', 'c']) box.run(`box-${b}`, b, b, at, at);
  // a: 1.10.0 is the highest by Ruby Gem ordering (not by text, not by creation), with two providers.
  version.run('va1', 'box-a', '1.9.0', 'active', at, at);
  version.run('va2', 'box-a', '1.10.0', 'active', '2025-01-01T00:00:00.000Z', at);
  version.run('va3', 'box-a', '2.0.0', 'unreleased', at, at);
  provider.run('pa1', 'va1', 'virtualbox', 'amd64', at, at);
  provider.run('pa2', 'va2', 'virtualbox', 'amd64', at, at);
  provider.run('pa3', 'va2', 'libvirt', 'arm64', at, at);
  // b: one released version without providers; c: nothing released.
  version.run('vb1', 'box-b', '0.1.0', 'active', at, at);
  version.run('vc1', 'box-c', '1.0.0', 'unreleased', at, at);
});

afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('RegistryRepository.currentVersions', () => {
  it('gives each box its highest released version with all its providers, in the order asked', async () => {
    const repo = new RegistryRepository(store.db, store.versions);
    const current = await repo.currentVersions(['box-c', 'box-a', 'box-b', 'box-missing']);
    expect(current.map((d) => d?.version.id)).toEqual([undefined, 'va2', 'vb1', undefined]);
    expect(current[1]?.providers.map((p) => [p.id, p.version_id, p.name])).toEqual([
      ['pa3', 'va2', 'libvirt'],
      ['pa2', 'va2', 'virtualbox'],
    ]);
    expect(current[2]?.providers).toEqual([]);
  });

  it("keeps each box's in memory until its versions or providers change, and only then", async () => {
    const repo = new RegistryRepository(store.db, store.versions);
    const ids = () => repo.currentVersions(['box-b']).then(([d]) => [d?.version.id, d?.providers.map((p) => p.id)]);
    expect(await ids()).toEqual(['vb1', []]);
    const hits = store.versions.lookups.hits;
    await store.db.insertInto('settings').values({ key: 'unrelated', value: '1' }).execute();
    expect(await ids()).toEqual(['vb1', []]);
    expect(store.versions.lookups.hits).toBe(hits + 1);
    await store.db
      .insertInto('box_providers')
      .values({
        id: 'pb1',
        version_id: 'vb1',
        name: 'virtualbox',
        architecture: 'amd64',
        created_at: at,
        updated_at: at,
      })
      .execute();
    expect(await ids()).toEqual(['vb1', ['pb1']]);
    await store.db
      .insertInto('box_versions')
      .values({ id: 'vb2', box_id: 'box-b', version: '0.2.0', status: 'active', created_at: at, updated_at: at })
      .execute();
    expect(await ids()).toEqual(['vb2', []]);
  });
});
