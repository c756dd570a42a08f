import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../daemon/src/store/db';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient } from '../helpers/http';
import { JSONAPI, doc } from '../helpers/agents';
import { runCli } from '../helpers/cli';
import { serveJson, staticServer, type StaticServer } from '../helpers/mirror';

// Organizations have one owner (orgs/service.ts). Every way of creating one writes the
// organization, its owner's membership, its HCP Terraform settings and its default project in one
// transaction; a failing part undoes all of it; reads never write; migration 012 fills in the
// default project of organizations made before.

const MIGRATIONS = fileURLToPath(new URL('../../daemon/src/store/migrations', import.meta.url));

/** What one organization's creation wrote, by its name. */
async function written(d: TestDaemon, name: string) {
  const db = d.deps.db;
  const org = await db
    .selectFrom('organizations')
    .selectAll()
    .where('name_key', '=', name.toLowerCase())
    .executeTakeFirst();
  if (!org) throw new Error(`no organization named ${name} was written`);
  const members = await db
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select(['users.username', 'memberships.role'])
    .where('organization_id', '=', org.id)
    .orderBy('users.username')
    .execute();
  const projects = await db
    .selectFrom('projects')
    .select(['name', 'is_default'])
    .where('organization_id', '=', org.id)
    .execute();
  const settings = await db
    .selectFrom('organization_tfc_settings')
    .selectAll()
    .where('organization_id', '=', org.id)
    .execute();
  return { org, members: members.map((m) => `${m.username}:${m.role}`), projects, settings };
}

const DEFAULT_ONLY = [{ name: 'Default Project', is_default: 1 }];

/** Every row of the tables an organization's creation writes: to show that a request wrote nothing. */
/** A trigger that fails every insert of a project of the doomed organizations, on either database. */
async function refuseProjects(d: TestDaemon): Promise<void> {
  const doomed = "(SELECT id FROM organizations WHERE name_key IN ('doomed', 'doomed-ui'))";
  if (d.deps.store.dialect === 'sqlite') {
    await sql
      .raw(`CREATE TRIGGER refuse_projects BEFORE INSERT ON projects WHEN new.organization_id IN ${doomed}
      BEGIN SELECT RAISE(ABORT, 'no projects for this organization'); END`)
      .execute(d.deps.db);
    return;
  }
  // PostgreSQL allows no subquery in a trigger's WHEN: the function decides.
  await sql
    .raw(`CREATE OR REPLACE FUNCTION refuse_projects() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.organization_id IN ${doomed} THEN RAISE EXCEPTION 'no projects for this organization'; END IF;
      RETURN NEW;
    END $$`)
    .execute(d.deps.db);
  await sql
    .raw('CREATE TRIGGER refuse_projects BEFORE INSERT ON projects FOR EACH ROW EXECUTE FUNCTION refuse_projects()')
    .execute(d.deps.db);
}

async function snapshot(d: TestDaemon) {
  const db = d.deps.db;
  return {
    organizations: await db.selectFrom('organizations').selectAll().orderBy('id').execute(),
    memberships: await db.selectFrom('memberships').selectAll().orderBy('organization_id').orderBy('user_id').execute(),
    settings: await db.selectFrom('organization_tfc_settings').selectAll().orderBy('organization_id').execute(),
    projects: await db.selectFrom('projects').selectAll().orderBy('id').execute(),
  };
}

describe('creating an organization writes all of it in one go, whichever way', () => {
  let d: TestDaemon;
  let olive: HttpClient;
  let s: StaticServer;

  beforeAll(async () => {
    s = await staticServer();
    s.route(
      '/cachy/box',
      serveJson({
        name: 'cachy/box',
        versions: [{ version: '1.0.0', providers: [{ name: 'virtualbox', url: '/files/1.box' }] }],
      }),
    );
    d = await startTestDaemon({ config: { upstream: s.url } });
    // olive is no administrator: her upstream on this machine must be allowed.
    await d.http
      .withToken(d.adminToken)
      .put('/api/boxyard/settings', { settings: { mirror_allowed_hosts: ['127.0.0.1'] } });
    olive = (await d.user('olive')).http;
  });
  afterAll(async () => {
    await d?.stop();
    await s?.close();
  });

  it('POST /api/v2/organizations (go-tfe, the tfe provider)', async () => {
    const r = await olive
      .withContentType(JSONAPI)
      .post(
        '/api/v2/organizations',
        doc('organizations', { name: 'tfc-org', email: 'o@example.org', 'agent-pool-limit': 4, 'session-timeout': 60 }),
      );
    expect(r.status, r.text).toBe(201);
    const w = await written(d, 'tfc-org');
    expect(w.org.agent_pool_limit).toBe(4);
    expect(w.members).toEqual(['olive:owner']);
    expect(w.projects).toEqual(DEFAULT_ONLY);
    expect(w.settings).toMatchObject([
      { session_timeout: 60, collaborator_auth_policy: 'password', default_execution_mode: 'remote' },
    ]);
    // The projects page shows the default project the creation made.
    const projects = await olive.get('/api/v2/organizations/tfc-org/projects');
    expect(projects.json.data.map((p: { attributes: { name: string } }) => p.attributes.name)).toEqual([
      'Default Project',
    ]);
  });

  it('POST /api/boxyard/organizations (the web UI)', async () => {
    const r = await olive.post('/api/boxyard/organizations', { organization: { name: 'ui-org' } });
    expect(r.status, r.text).toBe(201);
    const w = await written(d, 'ui-org');
    expect(w.members).toEqual(['olive:owner']);
    expect(w.projects).toEqual(DEFAULT_ONLY);
    expect(w.settings).toHaveLength(1);
  });

  it('boxyard org create (the CLI, on the data folder)', async () => {
    const r = await runCli(['org', 'create', 'cli-org', '--owner', 'olive'], {
      BOXYARD_DATA: d.dataDir,
      BOXYARD_LOG_LEVEL: 'silent',
    });
    expect(r, r.stderr).toMatchObject({ code: 0, stdout: 'created organization cli-org owned by olive\n' });
    const w = await written(d, 'cli-org');
    expect(w.members).toEqual(['olive:owner']);
    expect(w.projects).toEqual(DEFAULT_ONLY);
    expect(w.settings).toHaveLength(1);
  });

  it('a mirror into an organization that does not exist yet', async () => {
    const r = await olive.post('/api/boxyard/mirrors', {
      mirror: { upstream: { url: s.url }, source: 'cachy/box', target: 'mirror-org/box' },
    });
    expect(r.status, r.text).toBe(201);
    const w = await written(d, 'mirror-org');
    expect(w.members).toEqual(['olive:owner']);
    expect(w.projects).toEqual(DEFAULT_ONLY);
    expect(w.settings).toHaveLength(1);
  });

  it('the pull-through cache, whose organizations have no owner', async () => {
    const r = await d.http.get('/cachy/box');
    expect(r.status, r.text).toBe(200);
    const w = await written(d, 'cachy');
    expect(w.members).toEqual([]);
    expect(w.projects).toEqual(DEFAULT_ONLY);
    expect(w.settings).toHaveLength(1);
  });

  it('reads write nothing: organizations, their projects and a workspace list', async () => {
    // An organization as one made before migration 012 might be: no default project, no settings.
    const now = new Date().toISOString();
    await d.deps.db
      .insertInto('organizations')
      .values({ id: 'org-bare', name: 'bare', name_key: 'bare', email: null, created_at: now, updated_at: now })
      .execute();
    const admin = d.http.withToken(d.adminToken);
    const before = await snapshot(d);
    for (const org of ['tfc-org', 'ui-org', 'bare']) {
      for (const path of [
        `/api/v2/organizations/${org}`,
        `/api/v2/organizations/${org}/projects`,
        `/api/v2/organizations/${org}/workspaces`,
        `/api/boxyard/organizations/${org}`,
      ]) {
        expect((await admin.get(path)).status, path).toBe(200);
      }
    }
    expect((await admin.get('/api/v2/organizations')).status).toBe(200);
    expect((await admin.get('/api/boxyard/organizations')).status).toBe(200);
    expect(await snapshot(d)).toEqual(before);
    expect((await admin.get('/api/v2/organizations/bare/projects')).json.data).toEqual([]);
  });
});

describe('a part that fails undoes the whole creation', () => {
  let d: TestDaemon;
  let olive: HttpClient;

  beforeAll(async () => {
    d = await startTestDaemon();
    olive = (await d.user('olive')).http;
  });
  afterAll(() => d?.stop());

  it('the default project cannot be written: no organization, membership or settings remain, and the name is free again', async () => {
    // A real failure inside the transaction, after the organization, its owner and its settings are written.
    await refuseProjects(d);
    const before = await snapshot(d);
    const tfc = await olive
      .withContentType(JSONAPI)
      .post(
        '/api/v2/organizations',
        doc('organizations', { name: 'doomed', 'agent-pool-limit': 3, 'session-timeout': 5 }),
      );
    expect(tfc.status).toBe(500);
    expect(tfc.text).not.toContain('no projects');
    const ui = await olive.post('/api/boxyard/organizations', { organization: { name: 'doomed-ui' } });
    expect(ui.status).toBe(500);
    expect(await snapshot(d)).toEqual(before);
    expect((await olive.get('/api/boxyard/organizations')).json.organizations).toEqual([]);

    await sql`DROP TRIGGER refuse_projects ${sql.raw(d.deps.store.dialect === 'postgres' ? 'ON projects' : '')}`.execute(
      d.deps.db,
    );
    expect(
      (await olive.withContentType(JSONAPI).post('/api/v2/organizations', doc('organizations', { name: 'doomed' })))
        .status,
    ).toBe(201);
    expect((await written(d, 'doomed')).projects).toEqual(DEFAULT_ONLY);
  });

  it('a later hook breaks a constraint (a second default project): the earlier ones are undone too', async () => {
    d.deps.orgs.afterCreate(async (trx, org) => {
      if (org.name !== 'twice') return;
      await trx
        .insertInto('projects')
        .values({
          id: `prj-again-${org.id}`,
          organization_id: org.id,
          name: 'Another Default',
          name_key: 'another default',
          is_default: 1,
          created_at: org.created_at,
        })
        .execute();
    });
    const before = await snapshot(d);
    const r = await olive.post('/api/boxyard/organizations', { organization: { name: 'twice' } });
    expect(r.status).toBe(500);
    expect(await snapshot(d)).toEqual(before);
    expect(await d.deps.orgs.named('twice')).toBeUndefined();
  });

  it('a taken name is refused before anything is written (422), as before', async () => {
    const before = await snapshot(d);
    const r = await olive
      .withContentType(JSONAPI)
      .post('/api/v2/organizations', doc('organizations', { name: 'DOOMED' }));
    expect(r.status).toBe(422);
    expect(r.json.errors[0].detail).toContain('already taken');
    expect(await snapshot(d)).toEqual(before);
  });
});

describe('migration 012: organizations made before it get their default project and settings', () => {
  let dir: string;
  let raw: SqliteDatabase.Database;
  const at = '2024-01-01T00:00:00.000Z';

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'boxyard-migration-012-'));
    const migrations = join(dir, 'migrations');
    mkdirSync(migrations);
    const files = readdirSync(MIGRATIONS)
      .filter((f) => /^\d{3}-.*\.sql$/.test(f))
      .sort();
    for (const f of files.filter((x) => x < '012')) copyFileSync(join(MIGRATIONS, f), join(migrations, f));
    raw = new SqliteDatabase(join(dir, 'db.sqlite'));
    raw.pragma('foreign_keys = ON');
    migrate(raw, migrations);
    const org = raw.prepare(
      'INSERT INTO organizations (id, name, name_key, created_at, updated_at) VALUES (?, ?, ?, ?, ?)',
    );
    const project = raw.prepare(
      'INSERT INTO projects (id, organization_id, name, name_key, is_default, created_at) VALUES (?, ?, ?, ?, ?, ?)',
    );
    // Made through /api/boxyard or the CLI: nothing but the row.
    org.run('org-plain', 'plain', 'plain', at, at);
    // Its projects page was read once: it has its default project, and another one.
    org.run('org-read', 'read', 'read', at, at);
    project.run('prj-kept', 'org-read', 'Default Project', 'default project', 1, at);
    project.run('prj-other', 'org-read', 'Other', 'other', 0, '2024-02-01T00:00:00.000Z');
    raw
      .prepare('INSERT INTO organization_tfc_settings (organization_id, session_timeout) VALUES (?, ?)')
      .run('org-read', 60);
    for (const f of files.filter((x) => x >= '012')) copyFileSync(join(MIGRATIONS, f), join(migrations, f));
    expect(migrate(raw, migrations)).toContain('012-organization-defaults.sql');
  });
  afterAll(() => {
    raw?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const projectsOf = (org: string) =>
    raw
      .prepare(
        'SELECT id, name, is_default, created_at FROM projects WHERE organization_id = ? ORDER BY created_at, id',
      )
      .all(org) as Array<{ id: string; name: string; is_default: number; created_at: string }>;

  it('adds a default project, dated as its organization, where there is none', () => {
    const [p, ...rest] = projectsOf('org-plain');
    expect(rest).toEqual([]);
    expect(p).toMatchObject({ name: 'Default Project', is_default: 1, created_at: at });
    expect(p.id).toMatch(/^prj-[0-9a-f]{16}$/);
  });

  it('keeps an existing default project and the other projects as they were', () => {
    expect(projectsOf('org-read')).toEqual([
      { id: 'prj-kept', name: 'Default Project', is_default: 1, created_at: at },
      { id: 'prj-other', name: 'Other', is_default: 0, created_at: '2024-02-01T00:00:00.000Z' },
    ]);
  });

  it('adds default settings where there are none and keeps those there are', () => {
    const settings = raw
      .prepare(
        'SELECT organization_id, session_timeout, default_execution_mode FROM organization_tfc_settings ORDER BY organization_id',
      )
      .all();
    expect(settings).toEqual([
      { organization_id: 'org-plain', session_timeout: null, default_execution_mode: 'remote' },
      { organization_id: 'org-read', session_timeout: 60, default_execution_mode: 'remote' },
    ]);
  });

  it('from then on, an organization has at most one default project', () => {
    expect(() =>
      raw
        .prepare(
          'INSERT INTO projects (id, organization_id, name, name_key, is_default, created_at) VALUES (?, ?, ?, ?, 1, ?)',
        )
        .run('prj-second', 'org-plain', 'Second', 'second', at),
    ).toThrow(/UNIQUE constraint failed/);
  });
});
