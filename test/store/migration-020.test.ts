import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { migrate } from '../../daemon/src/store/db';
import { MIGRATIONS_DIR } from '../../daemon/src/store/migrations';

/**
 * Migration 020 (workspace inheritance) on a database made before it: a workspace inherits its organization's
 * defaults only where they give what it already runs with, so nothing runs elsewhere after an upgrade.
 */
describe('migration 020: workspaces that already exist', () => {
  const dir = mkdtempSync(join(tmpdir(), 'boxyard-migration-020-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("marks as their own the mode and pool that differ from the organization's defaults", () => {
    const migrations = join(dir, 'migrations');
    mkdirSync(migrations);
    const files = readdirSync(MIGRATIONS_DIR)
      .filter((f) => /^\d{3}-.*\.sql$/.test(f))
      .sort();
    for (const f of files.filter((x) => x < '020')) copyFileSync(join(MIGRATIONS_DIR, f), join(migrations, f));
    const raw = new SqliteDatabase(join(dir, 'db.sqlite'));
    try {
      raw.pragma('foreign_keys = ON');
      migrate(raw, migrations);
      const at = '2026-01-01T00:00:00.000Z';
      const org = raw.prepare(
        'INSERT INTO organizations (id, name, name_key, created_at, updated_at) VALUES (?, ?, ?, ?, ?)',
      );
      org.run('org-a', 'a', 'a', at, at);
      org.run('org-r', 'r', 'r', at, at);
      for (const o of ['org-a', 'org-r'])
        raw
          .prepare(
            "INSERT INTO projects (id, organization_id, name, name_key, is_default, created_at) VALUES (?, ?, 'Default Project', 'default project', 1, ?)",
          )
          .run(`prj-${o}`, o, at);
      const pool = raw.prepare(
        'INSERT INTO agent_pools (id, organization_id, name, name_key, organization_scoped, seq, created_at) VALUES (?, ?, ?, ?, 1, ?, ?)',
      );
      pool.run('apool-d', 'org-a', 'd', 'd', 1, at);
      pool.run('apool-x', 'org-a', 'x', 'x', 2, at);
      // org-r has no settings row (HCP Terraform's defaults: remote, no pool).
      raw
        .prepare(
          "INSERT INTO organization_tfc_settings (organization_id, default_execution_mode, default_agent_pool_id) VALUES ('org-a', 'agent', 'apool-d')",
        )
        .run();
      const ws = raw.prepare(
        "INSERT INTO workspaces (id, organization_id, project_id, name, name_key, description, execution_mode, agent_pool_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, '', ?, ?, ?, ?)",
      );
      ws.run('ws-default', 'org-a', 'prj-org-a', 'default', 'default', 'agent', 'apool-d', at, at);
      ws.run('ws-other-pool', 'org-a', 'prj-org-a', 'other', 'other', 'agent', 'apool-x', at, at);
      ws.run('ws-remote', 'org-a', 'prj-org-a', 'remote', 'remote', 'remote', null, at, at);
      ws.run('ws-plain', 'org-r', 'prj-org-r', 'plain', 'plain', 'remote', null, at, at);
      ws.run('ws-local', 'org-r', 'prj-org-r', 'local', 'local', 'local', null, at, at);
      for (const f of files.filter((x) => x >= '020')) copyFileSync(join(MIGRATIONS_DIR, f), join(migrations, f));
      expect(migrate(raw, migrations)).toContain('020-workspace-overwrites.sql');
      const rows = raw
        .prepare(
          'SELECT id, execution_mode, agent_pool_id, execution_mode_overwritten AS m, agent_pool_overwritten AS p FROM workspaces ORDER BY id',
        )
        .all();
      expect(rows).toEqual([
        { id: 'ws-default', execution_mode: 'agent', agent_pool_id: 'apool-d', m: 0, p: 0 },
        { id: 'ws-local', execution_mode: 'local', agent_pool_id: null, m: 1, p: 1 },
        { id: 'ws-other-pool', execution_mode: 'agent', agent_pool_id: 'apool-x', m: 0, p: 1 },
        { id: 'ws-plain', execution_mode: 'remote', agent_pool_id: null, m: 0, p: 0 },
        { id: 'ws-remote', execution_mode: 'remote', agent_pool_id: null, m: 1, p: 1 },
      ]);
    } finally {
      raw.close();
    }
  });
});
