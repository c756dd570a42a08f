import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { openStore, type SqliteStore } from '../../daemon/src/store/db';
import { migratePostgres } from '../../daemon/src/store/postgres';
import { DIALECT_ONLY } from '../../daemon/src/store/migrations';
import { ensureDatabase, startTestPostgres, type TestPostgres } from '../helpers/postgres';

/**
 * The schema as both databases describe it, in one shape: per table its columns (type family,
 * NOT NULL, default), primary and unique keys, named indexes (columns, order, unique, predicate),
 * foreign keys, and the triggers. Whatever only one database has (DIALECT_ONLY) is left out.
 */
interface Schema {
  tables: Record<string, { columns: Record<string, string>; keys: string[]; foreign: string[] }>;
  indexes: Record<string, string>;
  triggers: string[];
}

const typeFamily = (t: string) => (/int/i.test(t) ? 'integer' : /text|char/i.test(t) ? 'text' : t.toLowerCase());
const normDefault = (v: string | null) =>
  v === null ? 'none' : v.replace(/::[\w ]+/g, '').replace(/^\((.*)\)$/, '$1');
const norm = (s: string) => s.toLowerCase().replace(/[()\s"]/g, '');
const DELETE_RULE: Record<string, string> = {
  a: 'no action',
  r: 'restrict',
  c: 'cascade',
  n: 'set null',
  d: 'set default',
};

function sqliteSchema(store: SqliteStore): Schema {
  const raw = store.raw;
  const only = DIALECT_ONLY.sqlite;
  const out: Schema = { tables: {}, indexes: {}, triggers: [] };
  const tables = raw
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
    .pluck()
    .all() as string[];
  for (const t of tables.filter((n) => !only.tables.test(n))) {
    const columns: Record<string, string> = {};
    for (const c of raw.prepare('SELECT * FROM pragma_table_info(?)').all(t) as Array<{
      name: string;
      type: string;
      notnull: number;
      dflt_value: string | null;
      pk: number;
    }>) {
      columns[c.name] =
        `${typeFamily(c.type)} ${c.notnull || c.pk ? 'not null' : 'null'} default ${normDefault(c.dflt_value)}`;
    }
    const pk = raw.prepare('SELECT name FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk').pluck().all(t) as string[];
    const keys = pk.length ? [`primary ${pk.join(',')}`] : [];
    for (const ix of raw
      .prepare('SELECT name, "unique", origin FROM pragma_index_list(?) WHERE origin = \'u\'')
      .all(t) as Array<{ name: string }>) {
      keys.push(
        `unique ${(raw.prepare('SELECT name FROM pragma_index_info(?) ORDER BY seqno').pluck().all(ix.name) as string[]).join(',')}`,
      );
    }
    const foreign = (
      raw.prepare('SELECT "table", "from", "to", on_delete FROM pragma_foreign_key_list(?)').all(t) as Array<
        Record<string, string>
      >
    ).map((f) => `${f.from} → ${f.table}(${f.to}) on delete ${f.on_delete.toLowerCase()}`);
    out.tables[t] = { columns, keys: keys.sort(), foreign: foreign.sort() };
  }
  for (const ix of raw
    .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")
    .all() as Array<{ name: string; sql: string }>) {
    if (only.indexes.test(ix.name)) continue;
    // Lazy up to the `)` that the rest of the statement follows: expression indexes nest parentheses.
    const m = /^CREATE (UNIQUE )?INDEX \w+ ON (\w+) ?\((.*?)\)(?: WHERE (.*))?$/is.exec(ix.sql.trim());
    assert(m, `an index SQLite defines in a way this test does not read: ${ix.sql}`);
    out.indexes[ix.name] = `${m[1] ? 'unique ' : ''}${m[2]} ${norm(m[3])}${m[4] ? ` where ${norm(m[4])}` : ''}`;
  }
  out.triggers = (raw.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger'").pluck().all() as string[])
    .filter((n) => !only.triggers.has(n))
    .sort();
  return out;
}

async function postgresSchema(client: pg.Client): Promise<Schema> {
  const only = DIALECT_ONLY.postgres;
  const out: Schema = { tables: {}, indexes: {}, triggers: [] };
  const q = async <R>(text: string, values: unknown[] = []) => (await client.query(text, values)).rows as R[];
  const tables = (
    await q<{ t: string }>(
      "SELECT table_name AS t FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
    )
  ).map((r) => r.t);
  for (const t of tables.filter((n) => !only.tables.test(n))) {
    const columns: Record<string, string> = {};
    for (const c of await q<{
      column_name: string;
      data_type: string;
      is_nullable: string;
      column_default: string | null;
    }>(
      "SELECT column_name, data_type, is_nullable, column_default FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1",
      [t],
    )) {
      columns[c.column_name] =
        `${typeFamily(c.data_type)} ${c.is_nullable === 'NO' ? 'not null' : 'null'} default ${normDefault(c.column_default)}`;
    }
    const constraints = await q<{
      contype: string;
      cols: string[];
      parent: string | null;
      pcols: string[] | null;
      confdeltype: string;
    }>(
      `
      SELECT c.contype, c.confdeltype,
        ARRAY(SELECT a.attname FROM unnest(c.conkey) WITH ORDINALITY k(n, i) JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n ORDER BY k.i)::text[] AS cols,
        p.relname AS parent,
        ARRAY(SELECT a.attname FROM unnest(c.confkey) WITH ORDINALITY k(n, i) JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n ORDER BY k.i)::text[] AS pcols
      FROM pg_constraint c LEFT JOIN pg_class p ON p.oid = c.confrelid
      WHERE c.conrelid = $1::regclass AND c.contype IN ('p', 'u', 'f')`,
      [t],
    );
    const keys = constraints
      .filter((c) => c.contype !== 'f')
      .map((c) => `${c.contype === 'p' ? 'primary' : 'unique'} ${c.cols.join(',')}`);
    const foreign = constraints
      .filter((c) => c.contype === 'f')
      .map(
        (c) =>
          `${c.cols.join(',')} → ${c.parent}(${(c.pcols ?? []).join(',')}) on delete ${DELETE_RULE[c.confdeltype]}`,
      );
    out.tables[t] = { columns, keys: keys.sort(), foreign: foreign.sort() };
  }
  for (const ix of await q<{ name: string; def: string }>(`
    SELECT i.indexname AS name, i.indexdef AS def FROM pg_indexes i
    WHERE i.schemaname = 'public' AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = (quote_ident(i.indexname))::regclass)`)) {
    if (only.indexes.test(ix.name)) continue;
    const m = /^CREATE (UNIQUE )?INDEX \w+ ON public\.(\w+) USING btree \((.*?)\)(?: WHERE (.*))?$/is.exec(ix.def);
    assert(m, `an index PostgreSQL defines in a way this test does not read: ${ix.def}`);
    out.indexes[ix.name] = `${m[1] ? 'unique ' : ''}${m[2]} ${norm(m[3])}${m[4] ? ` where ${norm(m[4])}` : ''}`;
  }
  out.triggers = (await q<{ tgname: string }>('SELECT DISTINCT tgname FROM pg_trigger WHERE NOT tgisinternal'))
    .map((r) => r.tgname)
    .filter((n) => !only.triggers.has(n))
    .sort();
  return out;
}

describe('one migration source, two databases', () => {
  let cluster: TestPostgres;
  let client: pg.Client;
  let dir: string;
  let sqlite: SqliteStore;

  beforeAll(async () => {
    cluster = await startTestPostgres();
    await ensureDatabase(cluster.url('postgres'), 'drift');
    const pool = new pg.Pool({ connectionString: cluster.url('drift') });
    await migratePostgres(pool);
    await pool.end();
    client = new pg.Client({ connectionString: cluster.url('drift') });
    await client.connect();
    dir = mkdtempSync(join(tmpdir(), 'boxyard-drift-'));
    sqlite = openStore(join(dir, 'db.sqlite'));
  }, 120_000);

  afterAll(async () => {
    await sqlite?.close();
    await client?.end();
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('gives SQLite and PostgreSQL the same tables, columns, keys, indexes and triggers', async () => {
    const a = sqliteSchema(sqlite);
    const b = await postgresSchema(client);
    expect(Object.keys(a.tables).length).toBeGreaterThan(20);
    expect(b).toEqual(a);
  });

  it('migrates PostgreSQL once: a second run applies nothing', async () => {
    const pool = new pg.Pool({ connectionString: cluster.url('drift') });
    try {
      expect(await migratePostgres(pool)).toEqual([]);
    } finally {
      await pool.end();
    }
  });
});
