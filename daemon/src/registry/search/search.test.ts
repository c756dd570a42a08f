import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type SqliteStore } from '../../store/db';
import { RegistryRepository } from '../repository';
import type { SearchFilter } from './query';

/**
 * Search at a few hundred boxes, through the trigram index (SQLite) and through LIKE alone (what
 * another database runs), against the rules written out in JavaScript: the same boxes, in the
 * same order, for text, sorts, visibility, filters and pages.
 */
let dir: string;
let store: SqliteStore;
const T0 = Date.parse('2026-01-01T00:00:00Z');

interface Box {
  id: string;
  owner: string;
  ownerId: string;
  kind: 'user' | 'org';
  name: string;
  short: string;
  private: boolean;
  downloads: number;
  created: string;
  updated: string;
  active: boolean;
  provider: string;
  arch: string;
}
const boxes: Box[] = [];
const members: Record<string, string[]> = {
  'user-alice': ['org-acme'],
  'user-bob': ['org-acme', 'org-zeta'],
  'user-carol': [],
};
const owners = [
  { id: 'user-alice', name: 'alice', kind: 'user' },
  { id: 'user-bob', name: 'Bob', kind: 'user' },
  { id: 'org-acme', name: 'acme', kind: 'org' },
  { id: 'org-zeta', name: 'zeta-labs', kind: 'org' },
  { id: 'org-box', name: 'boxers', kind: 'org' },
] as const;

let seed = 7;
const rand = (n: number) => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return Math.floor((seed / 2147483648) * n);
};
const pick = <T>(xs: readonly T[]) => xs[rand(xs.length)];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'boxyard-search-'));
  store = openStore(join(dir, 'db.sqlite'));
  const raw = store.raw;
  const at = (ms: number) => new Date(T0 + ms).toISOString();
  for (const o of owners) {
    if (o.kind === 'user')
      raw
        .prepare(
          'INSERT INTO users (id, username, username_key, password_hash, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
        )
        .run(o.id, o.name, o.name.toLowerCase(), 'x', at(0), at(0));
    else
      raw
        .prepare('INSERT INTO organizations (id, name, name_key, created_at, updated_at) VALUES (?, ?, ?, ?, ?)')
        .run(o.id, o.name, o.name, at(0), at(0));
  }
  raw
    .prepare(
      "INSERT INTO users (id, username, username_key, password_hash, created_at, updated_at) VALUES ('user-carol', 'carol', 'carol', 'x', ?, ?)",
    )
    .run(at(0), at(0));
  for (const [user, orgs] of Object.entries(members))
    for (const org of orgs) raw.prepare("INSERT INTO memberships VALUES (?, ?, 'member', ?)").run(org, user, at(0));
  const words = ['box', 'web', 'Ubuntu', 'debian', 'x-64', '100%', 'a_b', 'Ünïcode', 'say "hi"', 'BOX-7'];
  const seen = new Set<string>();
  for (let i = 0; boxes.length < 300; i++) {
    const o = pick(owners);
    const name = `${pick(['box', 'web', 'db', 'Ubuntu'])}-${rand(120)}`;
    if (seen.has(`${o.id}/${name.toLowerCase()}`)) continue;
    seen.add(`${o.id}/${name.toLowerCase()}`);
    const created = rand(1000) * 60_000;
    boxes.push({
      id: `box-${String(i).padStart(4, '0')}`,
      owner: o.name,
      ownerId: o.id,
      kind: o.kind,
      name,
      short: `${pick(words)} ${pick(words)}`,
      private: rand(5) === 0,
      downloads: rand(4) === 0 ? 0 : rand(50),
      created: at(created),
      updated: at(created + rand(5) * 60_000),
      active: rand(8) !== 0,
      provider: pick(['virtualbox', 'libvirt']),
      arch: pick(['amd64', 'arm64']),
    });
  }
  for (const b of boxes) {
    raw
      .prepare(
        'INSERT INTO boxes (id, user_id, organization_id, name, name_key, short_description, private, downloads, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
        b.id,
        b.kind === 'user' ? b.ownerId : null,
        b.kind === 'org' ? b.ownerId : null,
        b.name,
        b.name.toLowerCase(),
        b.short,
        b.private ? 1 : 0,
        b.downloads,
        b.created,
        b.updated,
      );
    raw
      .prepare(
        'INSERT INTO box_versions (id, box_id, version, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
      )
      .run(`v1-${b.id}`, b.id, '1.0.0', b.active ? 'active' : 'unreleased', b.created, b.created);
    raw
      .prepare(
        "INSERT INTO box_versions (id, box_id, version, status, created_at, updated_at) VALUES (?, ?, '0.9.0', 'revoked', ?, ?)",
      )
      .run(`v0-${b.id}`, b.id, b.created, b.created);
    raw
      .prepare(
        'INSERT INTO box_providers (id, version_id, name, architecture, default_architecture, created_at, updated_at) VALUES (?, ?, ?, ?, 1, ?, ?)',
      )
      .run(`p-${b.id}`, `v1-${b.id}`, b.provider, b.arch, b.created, b.created);
    // A revoked version's provider never counts for the provider filter.
    raw
      .prepare(
        "INSERT INTO box_providers (id, version_id, name, architecture, default_architecture, created_at, updated_at) VALUES (?, ?, 'hyperv', 'amd64', 1, ?, ?)",
      )
      .run(`p0-${b.id}`, `v0-${b.id}`, b.created, b.created);
  }
  // A rename reaches the index through its trigger.
  raw.prepare("UPDATE organizations SET name = 'acme-corp', name_key = 'acme-corp' WHERE id = 'org-acme'").run();
  for (const b of boxes) if (b.ownerId === 'org-acme') b.owner = 'acme-corp';
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** SQLite's lower() and LIKE fold ASCII letters only. */
const fold = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());

const owns = (userId: string, b: Box) => b.ownerId === userId || (members[userId] ?? []).includes(b.ownerId);
const compare = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);

function expected(f: SearchFilter): string[] {
  const visible = (b: Box) =>
    'all' in f.visible || !b.private || (f.visible.userId !== null && owns(f.visible.userId, b));
  // Search lists released boxes; a user's own list every box of their namespaces, by any version's provider.
  const listed = (b: Box) => (f.mine === undefined ? b.active && visible(b) : owns(f.mine, b));
  // Each box's 1.0.0 has its own provider, its revoked 0.9.0 a hyperv/amd64 one.
  const providers = (b: Box) =>
    f.mine === undefined
      ? [[b.provider, b.arch]]
      : [
          [b.provider, b.arch],
          ['hyperv', 'amd64'],
        ];
  const filtered = (b: Box) =>
    providers(b).some(([p, a]) => (!f.provider || p === f.provider) && (!f.architecture || a === f.architecture));
  const text = f.q === undefined ? undefined : fold(f.q.toLowerCase());
  const matches = (b: Box) => text === undefined || [b.name, b.short, b.owner].some((s) => fold(s).includes(text));
  const key = {
    downloads: (b: Box) => b.downloads,
    created: (b: Box) => b.created,
    updated: (b: Box) => b.updated,
    name: (b: Box) => b.name.toLowerCase(),
  }[f.sort];
  const dir = f.order === 'asc' ? 1 : -1;
  const byName = (a: Box, b: Box) => (f.sort === 'name' ? 0 : compare(a.name.toLowerCase(), b.name.toLowerCase()));
  return boxes
    .filter((b) => listed(b) && matches(b) && filtered(b))
    .sort((a, b) => dir * compare(key(a), key(b)) || byName(a, b) || compare(a.id, b.id))
    .slice(f.offset, f.offset + f.limit)
    .map((b) => b.id);
}

const QUERIES = [
  undefined,
  'box',
  'BOX-7',
  'b',
  'x-',
  'x-6',
  '%',
  '_',
  '100%',
  'a_b',
  'ubuntu',
  'acme-corp',
  'acme',
  'bob',
  'zeta',
  'zzz',
  'ünï',
  'Ünï',
  'say "hi"',
  '"',
  'web 1',
  'box-11',
];
const VISIBLE: SearchFilter['visible'][] = [
  { all: true },
  { userId: null },
  { userId: 'user-alice' },
  { userId: 'user-bob' },
  { userId: 'user-carol' },
];

describe.each(['sqlite-fts5', 'none'] as const)('search at 300 boxes, text index %s', (textIndex) => {
  it('answers what the rules say for every text, sort, order, caller and page', async () => {
    const repo = new RegistryRepository(store.db, store.versions, { textIndex });
    let hits = 0;
    for (const q of QUERIES) {
      for (const sort of ['downloads', 'created', 'updated', 'name'] as const) {
        for (const order of ['desc', 'asc'] as const) {
          for (const visible of VISIBLE) {
            for (const offset of [0, 7, 280]) {
              const f: SearchFilter = { q, sort, order, visible, limit: 7, offset };
              const want = expected(f);
              expect(
                (await repo.search(f)).map((b) => b.id),
                JSON.stringify(f),
              ).toEqual(want);
              hits += want.length;
            }
          }
        }
      }
    }
    // The data must give most of these cases something to find.
    expect(hits).toBeGreaterThan(5000);
  });

  it('lists a user’s own namespaces, released or not, for every text, sort and page', async () => {
    const repo = new RegistryRepository(store.db, store.versions, { textIndex });
    let hits = 0;
    for (const mine of ['user-alice', 'user-bob', 'user-carol']) {
      for (const q of [undefined, 'box', 'acme', '_']) {
        for (const sort of ['name', 'updated'] as const) {
          for (const order of ['asc', 'desc'] as const) {
            for (const offset of [0, 7]) {
              // `visible` is what the caller could see otherwise: it must not widen their own list.
              const f: SearchFilter = { q, sort, order, visible: { all: true }, mine, limit: 7, offset };
              const want = expected(f);
              expect(
                (await repo.search(f)).map((b) => b.id),
                JSON.stringify(f),
              ).toEqual(want);
              hits += want.length;
            }
          }
        }
      }
    }
    expect(hits).toBeGreaterThan(200);
    // Unreleased boxes are among them.
    const all = await repo.search({
      sort: 'name',
      order: 'asc',
      visible: { userId: 'user-bob' },
      mine: 'user-bob',
      limit: 100,
      offset: 0,
    });
    expect(all.some((b) => boxes.find((x) => x.id === b.id)?.active === false)).toBe(true);
  });

  it('filters by provider and architecture of released versions only', async () => {
    const repo = new RegistryRepository(store.db, store.versions, { textIndex });
    for (const [provider, architecture] of [
      ['libvirt', undefined],
      [undefined, 'arm64'],
      ['virtualbox', 'amd64'],
      ['hyperv', undefined],
    ] as const) {
      for (const q of [undefined, 'web']) {
        const f: SearchFilter = {
          q,
          provider,
          architecture,
          sort: 'downloads',
          order: 'desc',
          visible: { userId: 'user-bob' },
          limit: 100,
          offset: 0,
        };
        expect(
          (await repo.search(f)).map((b) => b.id),
          JSON.stringify(f),
        ).toEqual(expected(f));
        // A user's own list filters by the providers of any version (the revoked 0.9.0's hyperv too).
        const own: SearchFilter = { ...f, mine: 'user-bob' };
        expect(
          (await repo.search(own)).map((b) => b.id),
          JSON.stringify(own),
        ).toEqual(expected(own));
      }
    }
  });
});
