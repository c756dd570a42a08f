import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { migrate } from '../../daemon/src/store/db';
import { MIGRATIONS_DIR } from '../../daemon/src/store/migrations';

/**
 * Migration 022 (rights checked when used) on a database made before it: upload URLs learn who made them from
 * their token, and mirrors run as the user who made them.
 */
describe('migration 022: upload URLs and mirrors that already exist', () => {
  const dir = mkdtempSync(join(tmpdir(), 'boxyard-migration-022-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("records each upload URL's issuer from its token and each mirror's user from its creator", () => {
    const migrations = join(dir, 'migrations');
    mkdirSync(migrations);
    const files = readdirSync(MIGRATIONS_DIR)
      .filter((f) => /^\d{3}-.*\.sql$/.test(f))
      .sort();
    for (const f of files.filter((x) => x < '022')) copyFileSync(join(MIGRATIONS_DIR, f), join(migrations, f));
    const raw = new SqliteDatabase(join(dir, 'db.sqlite'));
    try {
      raw.pragma('foreign_keys = ON');
      migrate(raw, migrations);
      const at = '2026-01-01T00:00:00.000Z';
      raw
        .prepare(
          "INSERT INTO users (id, username, username_key, password_hash, created_at, updated_at) VALUES ('user-b', 'bob', 'bob', 'x', ?, ?)",
        )
        .run(at, at);
      raw
        .prepare(
          "INSERT INTO api_tokens (id, user_id, token_hash, description, created_at) VALUES ('tok-b', 'user-b', 'h', '', ?)",
        )
        .run(at);
      raw
        .prepare(
          "INSERT INTO boxes (id, user_id, name, name_key, created_at, updated_at) VALUES ('box-1', 'user-b', 'web', 'web', ?, ?)",
        )
        .run(at, at);
      raw
        .prepare(
          "INSERT INTO box_versions (id, box_id, version, created_at, updated_at) VALUES ('ver-1', 'box-1', '1.0.0', ?, ?)",
        )
        .run(at, at);
      raw
        .prepare(
          "INSERT INTO box_providers (id, version_id, name, architecture, created_at, updated_at) VALUES ('prov-1', 'ver-1', 'virtualbox', 'amd64', ?, ?)",
        )
        .run(at, at);
      const session = raw.prepare(
        "INSERT INTO upload_sessions (id, secret_hash, provider_id, kind, token_id, created_at, updated_at, expires_at) VALUES (?, ?, 'prov-1', 'plain', ?, ?, ?, ?)",
      );
      session.run('upl-token', 'h1', 'tok-b', at, at, at);
      session.run('upl-gone', 'h2', 'tok-deleted', at, at, at);
      session.run('upl-none', 'h3', null, at, at, at);
      raw
        .prepare(
          "INSERT INTO upstreams (id, name, name_key, kind, url, created_by, created_at, updated_at) VALUES ('ups-1', 'u', 'u', 'registry', 'https://x.example', 'user-b', ?, ?)",
        )
        .run(at, at);
      const mirror = raw.prepare(
        "INSERT INTO mirrors (id, upstream_id, source, target, providers, architectures, created_by, created_at, updated_at) VALUES (?, 'ups-1', 'up/web', 'bob/web', '[]', '[]', ?, ?, ?)",
      );
      mirror.run('mir-bob', 'user-b', at, at);
      mirror.run('mir-orphan', null, at, at);
      for (const f of files.filter((x) => x >= '022')) copyFileSync(join(MIGRATIONS_DIR, f), join(migrations, f));
      expect(migrate(raw, migrations)).toContain('022-rights-at-use.sql');
      expect(raw.prepare('SELECT id, user_id FROM upload_sessions ORDER BY id').all()).toEqual([
        { id: 'upl-gone', user_id: null },
        { id: 'upl-none', user_id: null },
        { id: 'upl-token', user_id: 'user-b' },
      ]);
      expect(raw.prepare('SELECT id, runs_as, paused FROM mirrors ORDER BY id').all()).toEqual([
        { id: 'mir-bob', runs_as: 'user-b', paused: null },
        { id: 'mir-orphan', runs_as: null, paused: null },
      ]);
      // The user a mirror runs as goes with their row, as its creator does.
      raw.prepare("DELETE FROM users WHERE id = 'user-b'").run();
      expect(raw.prepare("SELECT runs_as FROM mirrors WHERE id = 'mir-bob'").get()).toEqual({ runs_as: null });
    } finally {
      raw.close();
    }
  });
});
