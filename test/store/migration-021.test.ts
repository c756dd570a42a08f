import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../daemon/src/store/db';
import { migratePostgres } from '../../daemon/src/store/postgres';
import { MIGRATIONS_DIR } from '../../daemon/src/store/migrations';
import { ensureDatabase, startTestPostgres, type TestPostgres } from '../helpers/postgres';

/**
 * Migration 021 on a database made before it, on both databases: no upstream stays shared. A
 * mirror whose upstream belongs to someone else (an administrator's mirror-by-URL that found a
 * plain user's) gets a copy of its own, without the other user's token and held to the address
 * policy; the owner's row, its token and its own mirrors stay as they were; names become unique
 * per owner.
 */
const AT = '2026-01-01T00:00:00.000Z';
const SEED = [
  `INSERT INTO users (id, username, username_key, password_hash, is_admin, created_at, updated_at) VALUES
    ('usr-admin', 'admin', 'admin', 'x', 1, '${AT}', '${AT}'), ('usr-alice', 'alice', 'alice', 'x', 0, '${AT}', '${AT}')`,
  `INSERT INTO upstreams (id, name, name_key, kind, url, token, created_by, restricted, created_at, updated_at) VALUES
    ('ups-alice', 'lan', 'lan', 'registry', 'http://files.example/', 'ADMINS-TOKEN', 'usr-alice', 1, '${AT}', '${AT}'),
    ('ups-system', 'pull-through', 'pull-through', 'registry', 'http://cache.example/', 'SYSTEM-TOKEN', NULL, 0, '${AT}', '${AT}')`,
  `INSERT INTO mirrors (id, upstream_id, source, target, created_by, created_at, updated_at) VALUES
    ('mir-alice', 'ups-alice', 'a/b', 'alice/b', 'usr-alice', '${AT}', '${AT}'),
    ('mir-admin-1', 'ups-alice', 'a/c', 'admins/c', 'usr-admin', '${AT}', '${AT}'),
    ('mir-admin-2', 'ups-alice', 'a/d', 'admins/d', 'usr-admin', '${AT}', '${AT}'),
    ('mir-system', 'ups-system', 'a/e', 'admins/e', 'usr-admin', '${AT}', '${AT}')`,
];

type Row = Record<string, unknown>;
type Query = (sql: string) => Promise<Row[]>;

async function expectSplit(query: Query) {
  const mirrors = await query('SELECT id, upstream_id FROM mirrors ORDER BY id');
  const byId = Object.fromEntries(mirrors.map((m) => [m.id, m.upstream_id]));
  expect(byId['mir-alice']).toBe('ups-alice');
  expect(byId['mir-system']).toBe('ups-system');
  // Both of the administrator's mirrors share one copy, the administrator's.
  expect(byId['mir-admin-1']).toBe(byId['mir-admin-2']);
  expect(byId['mir-admin-1']).not.toBe('ups-alice');
  const [copy] = await query(`SELECT * FROM upstreams WHERE id = '${String(byId['mir-admin-1'])}'`);
  expect(copy).toMatchObject({
    created_by: 'usr-admin',
    token: null,
    restricted: expect.anything(),
    url: 'http://files.example/',
    kind: 'registry',
  });
  expect(Number(copy.restricted)).toBe(1);
  expect(String(copy.name)).toMatch(/^lan-[0-9a-f]{6}$/);
  expect(copy.name_key).toBe(String(copy.name).toLowerCase());
  // alice's row keeps its owner but not the token, which the takeover may have written into it.
  const [alice] = await query("SELECT * FROM upstreams WHERE id = 'ups-alice'");
  expect(alice).toMatchObject({ created_by: 'usr-alice', token: null, name: 'lan' });
  expect(alice.last_error).toMatch(/token was removed on upgrade.*Set your token again/);
  const [system] = await query("SELECT * FROM upstreams WHERE id = 'ups-system'");
  expect(system).toMatchObject({ token: 'SYSTEM-TOKEN', last_error: null });
  expect(await query('SELECT id FROM upstreams ORDER BY id')).toHaveLength(3);
}

/**
 * Names are unique per owner: alice may hold "lan" once, the administrator too. Rows without an
 * owner are not held to it: deleting a user whose upstream is named like another deleted user's
 * (or the daemon's own) must not fail.
 */
async function expectNamesPerOwner(exec: (sql: string) => Promise<unknown>) {
  const insert = (id: string, name: string, owner: string | null) =>
    exec(
      `INSERT INTO upstreams (id, name, name_key, kind, url, created_by, created_at, updated_at) VALUES ('${id}', '${name}', '${name.toLowerCase()}', 'registry', 'http://x/', ${owner ? `'${owner}'` : 'NULL'}, '${AT}', '${AT}')`,
    );
  await insert('ups-admin-lan', 'lan', 'usr-admin');
  await expect(insert('ups-alice-2', 'LAN', 'usr-alice')).rejects.toThrow(/unique/i);
  await insert('ups-alice-pt', 'pull-through', 'usr-alice');
  // alice's "pull-through" and the daemon's own both have no owner once she is deleted.
  await exec("DELETE FROM users WHERE id = 'usr-alice'");
}

/** A folder of the migrations before 021, as a database made by an earlier build had them. */
function migrationsBefore021(dir: string, label: string): string {
  const to = join(dir, `migrations-${label}`);
  mkdirSync(to);
  for (const f of readdirSync(MIGRATIONS_DIR).filter((x) => /^\d{3}-.*\.sql$/.test(x) && x < '021'))
    copyFileSync(join(MIGRATIONS_DIR, f), join(to, f));
  return to;
}

describe('migration 021: shared upstreams are split, names are unique per owner', () => {
  const dir = mkdtempSync(join(tmpdir(), 'boxyard-migration-021-'));
  let cluster: TestPostgres;
  beforeAll(async () => {
    cluster = await startTestPostgres();
  }, 120_000);
  afterAll(async () => {
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('on SQLite (the table made again, no mirror lost to a cascade)', async () => {
    const raw = new SqliteDatabase(join(dir, 'db.sqlite'));
    try {
      raw.pragma('foreign_keys = ON');
      migrate(raw, migrationsBefore021(dir, 'sqlite'));
      for (const s of SEED) raw.exec(s);
      expect(migrate(raw, MIGRATIONS_DIR)).toContain('021-upstream-owners.sql');
      expect(raw.pragma('foreign_keys', { simple: true })).toBe(1);
      expect(raw.pragma('foreign_key_check')).toEqual([]);
      await expectSplit(async (sql) => raw.prepare(sql).all() as Row[]);
      expect(
        raw.prepare("SELECT name FROM sqlite_master WHERE name IN ('upstream_copies', 'upstreams_new')").all(),
      ).toEqual([]);
      await expectNamesPerOwner(async (sql) => raw.exec(sql));
      // The foreign keys still hold after the table was made again: deleting an upstream takes its mirrors.
      raw.exec("DELETE FROM upstreams WHERE id = 'ups-alice'");
      expect(raw.prepare("SELECT id FROM mirrors WHERE id = 'mir-alice'").all()).toEqual([]);
    } finally {
      raw.close();
    }
  });

  it('on PostgreSQL', async () => {
    await ensureDatabase(cluster.url('postgres'), 'm021');
    const pool = new pg.Pool({ connectionString: cluster.url('m021') });
    try {
      await migratePostgres(pool, migrationsBefore021(dir, 'postgres'));
      for (const s of SEED) await pool.query(s);
      expect(await migratePostgres(pool)).toContain('021-upstream-owners.sql');
      await expectSplit(async (sql) => (await pool.query(sql)).rows);
      await expectNamesPerOwner((sql) => pool.query(sql));
    } finally {
      await pool.end();
    }
  });
});
