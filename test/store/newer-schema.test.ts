import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli';
import { startTestDaemon } from '../helpers/daemon';

const LATER = '999-from-a-later-version.sql';

/** The migrations a data folder's database has applied, read by a daemon started on it. */
async function appliedMigrations(dataDir: string, add?: string): Promise<string[]> {
  const d = await startTestDaemon({ dataDir });
  try {
    const db = d.deps.store.db;
    if (add) await sql`INSERT INTO schema_migrations (name, applied_at) VALUES (${add}, ${'2027-01-01'})`.execute(db);
    const rows = await sql<{ name: string }>`SELECT name FROM schema_migrations ORDER BY name`.execute(db);
    return rows.rows.map((r) => r.name);
  } finally {
    await d.stop();
  }
}

describe('a database upgraded by a newer Boxyard', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'boxyard-newer-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('stops this daemon at start with a message that says so, and is not written to', async () => {
    const before = await appliedMigrations(dataDir, LATER);
    expect(before).toContain(LATER);
    const sqliteFile = join(dataDir, 'boxyard.db');
    const digest = () => {
      try {
        return createHash('sha256').update(readFileSync(sqliteFile)).digest('hex');
      } catch {
        return 'no SQLite file (the database is PostgreSQL)';
      }
    };
    const file = digest();
    const serve = await runCli(['serve', '--data', dataDir, '--host', '127.0.0.1', '--port', '0']);
    expect(serve.code).not.toBe(0);
    expect(serve.stderr).toMatch(/last upgraded by a newer Boxyard: it has migration 999-from-a-later-version\.sql/);
    expect(serve.stderr).toMatch(/Nothing was written to the database/);
    // `boxyard check` refuses it the same way (on PostgreSQL it refuses any database: it checks a data folder's file).
    const check = await runCli(['check', '--data', dataDir]);
    expect(check.code).not.toBe(0);
    expect(check.stderr).toMatch(existsSync(sqliteFile) ? /newer Boxyard/ : /works on a data folder/);
    expect(digest()).toBe(file);
  });
});
