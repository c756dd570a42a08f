import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient } from '../helpers/http';
import {
  JSONAPI,
  createOrg,
  createPool,
  createProject,
  createWorkspace,
  doc,
  refs,
  setPoolLimit,
} from '../helpers/agents';

let d: TestDaemon;
let alice: HttpClient;
let bob: HttpClient;
let open: { id: string };
let scoped: { id: string };

beforeAll(async () => {
  d = await startTestDaemon();
  alice = (await d.user('alice')).http.withContentType(JSONAPI);
  bob = (await d.user('bob')).http.withContentType(JSONAPI);
  await createOrg(alice, 'acme');
  await createOrg(bob, 'other');
  await setPoolLimit(alice, 'acme', 5);
  open = await createPool(alice, 'acme', 'open');
  scoped = await createPool(alice, 'acme', 'scoped', { 'organization-scoped': false });
});
afterAll(() => d.stop());

const wsRow = (id: string) => d.deps.db.selectFrom('workspaces').selectAll().where('id', '=', id).executeTakeFirst();

describe('projects', () => {
  it('lists the default project of every organization and creates more', async () => {
    const list = await alice.get('/api/v2/organizations/acme/projects');
    expect(list.status).toBe(200);
    expect(list.json.data).toHaveLength(1);
    expect(list.json.data[0]).toMatchObject({
      type: 'projects',
      attributes: { name: 'Default Project', 'is-default': true },
      relationships: { organization: { data: { type: 'organizations', id: 'acme' } } },
    });
    const p = await createProject(alice, 'acme', 'infra');
    expect(p.id).toMatch(/^prj-/);
    expect((await alice.get(`/api/v2/projects/${p.id}`)).json.data.attributes.name).toBe('infra');
    expect((await alice.post('/api/v2/organizations/acme/projects', doc('projects', { name: 'INFRA' }))).status).toBe(
      422,
    );
    expect((await bob.get(`/api/v2/projects/${p.id}`)).status).toBe(404);
  });

  it('refuses to delete the default project or one holding workspaces (422), deletes an empty one (204)', async () => {
    const def = (await alice.get('/api/v2/organizations/acme/projects')).json.data[0];
    expect((await alice.delete(`/api/v2/projects/${def.id}`)).status).toBe(422);
    const p = await createProject(alice, 'acme', 'tmp');
    const ws = await createWorkspace(
      alice,
      'acme',
      'in-tmp',
      {},
      { project: { data: { type: 'projects', id: p.id } } },
    );
    expect((await alice.delete(`/api/v2/projects/${p.id}`)).status).toBe(422);
    expect((await alice.delete(`/api/v2/workspaces/${ws.id}`)).status).toBe(204);
    expect((await alice.delete(`/api/v2/projects/${p.id}`)).status).toBe(204);
    expect((await alice.get(`/api/v2/projects/${p.id}`)).status).toBe(404);
  });
});

describe('workspaces', () => {
  it('creates a remote workspace in the default project with an empty agent-pool relationship', async () => {
    const r = await alice.post(
      '/api/v2/organizations/acme/workspaces',
      doc('workspaces', { name: 'web', description: 'site', 'unknown-attr': true }),
    );
    expect(r.status).toBe(201);
    expect(r.json.data).toMatchObject({
      type: 'workspaces',
      attributes: {
        name: 'web',
        description: 'site',
        'execution-mode': 'remote',
        'agent-pool-id': null,
        operations: true,
      },
      relationships: { organization: { data: { type: 'organizations', id: 'acme' } }, 'agent-pool': { data: null } },
      links: { self: `/api/v2/workspaces/${r.json.data.id}` },
    });
    expect(r.json.data.id).toMatch(/^ws-/);
    const shown = await alice.get(`/api/v2/workspaces/${r.json.data.id}`);
    expect(shown.json.data).toEqual(r.json.data);
  });

  it('assigns a pool with agent-pool-id (execution-mode agent) and shows relationships.agent-pool', async () => {
    const ws = await createWorkspace(alice, 'acme', 'runner', { 'execution-mode': 'agent', 'agent-pool-id': open.id });
    expect(ws.attributes).toMatchObject({ 'execution-mode': 'agent', 'agent-pool-id': open.id });
    expect(ws.relationships['agent-pool'].data).toEqual({ type: 'agent-pools', id: open.id });
    expect((await alice.get(`/api/v2/agent-pools/${open.id}`)).json.data.relationships.workspaces.data).toEqual([
      { type: 'workspaces', id: ws.id },
    ]);
  });

  it('takes the pool from relationships.agent-pool too, implying execution-mode agent', async () => {
    const ws = await createWorkspace(
      alice,
      'acme',
      'by-rel',
      {},
      { 'agent-pool': { data: { type: 'agent-pools', id: open.id } } },
    );
    expect(ws.attributes['execution-mode']).toBe('agent');
    expect((await wsRow(ws.id))?.agent_pool_id).toBe(open.id);
  });

  it('treats an empty or null agent-pool-id as none (the tfe provider sends "")', async () => {
    const ws = await createWorkspace(alice, 'acme', 'switcher', {
      'execution-mode': 'agent',
      'agent-pool-id': open.id,
    });
    const off = await alice.patch(
      `/api/v2/workspaces/${ws.id}`,
      doc('workspaces', { 'execution-mode': 'remote', 'agent-pool-id': '' }),
    );
    expect(off.status).toBe(200);
    expect(off.json.data.attributes).toMatchObject({ 'execution-mode': 'remote', 'agent-pool-id': null });
    const local = await alice.patch(
      `/api/v2/workspaces/${ws.id}`,
      doc('workspaces', { 'execution-mode': 'local', 'agent-pool-id': null }),
    );
    expect(local.json.data.attributes).toMatchObject({
      'execution-mode': 'local',
      'agent-pool-id': null,
      operations: false,
    });
    expect((await wsRow(ws.id))?.agent_pool_id).toBeNull();
  });

  it('answers 422 for a pool the workspace may not use, an unknown pool, agent mode without a pool, and a pool without agent mode', async () => {
    const ws = await createWorkspace(alice, 'acme', 'picky');
    const foreign = await createPool(bob, 'other', 'theirs');
    const cases = [
      { 'execution-mode': 'agent', 'agent-pool-id': scoped.id },
      { 'execution-mode': 'agent', 'agent-pool-id': foreign.id },
      { 'execution-mode': 'agent', 'agent-pool-id': 'apool-nope' },
      { 'execution-mode': 'agent' },
      { 'execution-mode': 'remote', 'agent-pool-id': open.id },
      { 'execution-mode': 'cloud' },
    ];
    for (const attrs of cases) {
      const r = await alice.patch(`/api/v2/workspaces/${ws.id}`, doc('workspaces', attrs));
      expect(r.status, JSON.stringify(attrs)).toBe(422);
      expect(r.json.errors[0].status).toBe('422');
    }
    expect(await wsRow(ws.id)).toMatchObject({ execution_mode: 'remote', agent_pool_id: null });
    // Allowed by name, by project, and not when excluded.
    await alice.patch(
      `/api/v2/agent-pools/${scoped.id}`,
      doc('agent-pools', {}, { 'allowed-workspaces': refs('workspaces', [ws.id]) }),
    );
    expect(
      (await alice.patch(`/api/v2/workspaces/${ws.id}`, doc('workspaces', { 'agent-pool-id': scoped.id }))).status,
    ).toBe(200);
    const byProject = await createWorkspace(alice, 'acme', 'by-project');
    const prj = (await alice.get('/api/v2/organizations/acme/projects')).json.data[0];
    await alice.patch(
      `/api/v2/agent-pools/${scoped.id}`,
      doc(
        'agent-pools',
        {},
        { 'allowed-projects': refs('projects', [prj.id]), 'excluded-workspaces': refs('workspaces', [byProject.id]) },
      ),
    );
    expect(
      (await alice.patch(`/api/v2/workspaces/${byProject.id}`, doc('workspaces', { 'agent-pool-id': scoped.id })))
        .status,
    ).toBe(422);
    const other = await createWorkspace(alice, 'acme', 'by-project-2', { 'agent-pool-id': scoped.id });
    expect(other.attributes['agent-pool-id']).toBe(scoped.id);
  });

  it('refuses duplicate and malformed names with 422 and answers 404 to strangers', async () => {
    expect((await alice.post('/api/v2/organizations/acme/workspaces', doc('workspaces', { name: 'WEB' }))).status).toBe(
      422,
    );
    expect((await alice.post('/api/v2/organizations/acme/workspaces', doc('workspaces', { name: 'a b' }))).status).toBe(
      422,
    );
    const web = (await alice.get('/api/v2/organizations/acme/workspaces?search[name]=web')).json.data[0];
    expect((await bob.get(`/api/v2/workspaces/${web.id}`)).status).toBe(404);
    expect((await bob.get('/api/v2/organizations/acme/workspaces')).status).toBe(404);
    expect((await bob.delete(`/api/v2/workspaces/${web.id}`)).status).toBe(404);
    expect((await alice.get('/api/v2/workspaces/nonexisting')).status).toBe(404);
    expect(await wsRow(web.id)).toBeDefined();
  });

  it('lists workspaces with paging', async () => {
    const r = await alice.get('/api/v2/organizations/acme/workspaces?page[size]=2');
    expect(r.status).toBe(200);
    expect(r.json.data).toHaveLength(2);
    expect(r.json.meta.pagination['total-count']).toBeGreaterThan(4);
  });

  it('deleting a workspace removes it from every pool list', async () => {
    const ws = await createWorkspace(alice, 'acme', 'doomed');
    await alice.patch(
      `/api/v2/agent-pools/${scoped.id}`,
      doc(
        'agent-pools',
        {},
        { 'allowed-workspaces': refs('workspaces', [ws.id]), 'excluded-workspaces': refs('workspaces', [ws.id]) },
      ),
    );
    await alice.patch(
      `/api/v2/agent-pools/${open.id}`,
      doc('agent-pools', {}, { 'allowed-workspaces': refs('workspaces', [ws.id]) }),
    );
    const r = await alice.delete(`/api/v2/workspaces/${ws.id}`);
    expect(r.status).toBe(204);
    for (const p of [scoped, open]) {
      const rels = (await alice.get(`/api/v2/agent-pools/${p.id}`)).json.data.relationships;
      for (const key of ['allowed-workspaces', 'excluded-workspaces', 'workspaces']) {
        expect(rels[key].data.map((x: { id: string }) => x.id)).not.toContain(ws.id);
      }
    }
    expect(
      await d.deps.db
        .selectFrom('agent_pool_allowed_workspaces')
        .selectAll()
        .where('workspace_id', '=', ws.id)
        .execute(),
    ).toEqual([]);
  });
});
