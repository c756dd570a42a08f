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
  ids,
  query as q,
  refs,
  setPoolLimit,
} from '../helpers/agents';

/*
 * Replays of what newer clients send, taken from their source (facts only, no client code):
 * - go-tfe v1 (agent_pool.go, agent_pool_integration_test.go, agent_token.go, agent.go, workspace.go,
 *   organization.go): hashicorp/jsonapi bodies without `id`, relationships as bare identifiers, omitempty
 *   relationships left out, the UpdateAllowedWorkspaces, UpdateAllowedProjects and UpdateExcludedWorkspaces helpers
 * sending only one relationship (no
 *   attributes) and `data: []` to clear it; whole structs compared between create, read and list.
 * - terraform-provider-tfe: tfe_agent_pool and the agent pool data source through the generated go-tfe v2
 *   client (name + organization-scoped only; `q` + `page[size]=100`, following `meta.pagination.next-page`),
 *   tfe_agent_pool_allowed_workspaces/_allowed_projects/_excluded_workspaces, tfe_agent_token,
 *   tfe_workspace and tfe_workspace_settings through go-tfe v1.
 */

let d: TestDaemon;
let api: HttpClient;

/** go-tfe sends DELETE with the JSON:API media type and no body. */
const del = (path: string) => api.delete(path, { headers: { 'content-type': JSONAPI } });

beforeAll(async () => {
  d = await startTestDaemon();
  api = (await d.user('tfe')).http.withContentType(JSONAPI);
});
afterAll(() => d.stop());

describe('tfe provider: tfe_agent_pool and the agent pool data source (go-tfe v2 client)', () => {
  beforeAll(async () => {
    await createOrg(api, 'prov');
  });

  it('creates, reads back, updates name + organization-scoped, finds by name, deletes (404 afterwards is "gone")', async () => {
    const created = await api.post('/api/v2/organizations/prov/agent-pools', {
      data: { type: 'agent-pools', attributes: { name: 'prov-pool', 'organization-scoped': true } },
    });
    expect(created.status).toBe(201);
    const id = created.json.data.id;
    const read = await api.get(`/api/v2/agent-pools/${id}`);
    expect(read.json.data.attributes).toMatchObject({ name: 'prov-pool', 'organization-scoped': true });
    // Read takes the organization from relationships.organization.data.id (import by id).
    expect(read.json.data.relationships.organization.data.id).toBe('prov');
    const updated = await api.patch(`/api/v2/agent-pools/${id}`, {
      data: { type: 'agent-pools', attributes: { name: 'prov-pool-2', 'organization-scoped': false } },
    });
    expect(updated.status).toBe(200);
    expect(updated.json.data.attributes).toMatchObject({ name: 'prov-pool-2', 'organization-scoped': false });
    // fetchAgentPool: q=<name>, page[size]=100, then follows meta.pagination.next-page until null.
    const found = await api.get(
      `/api/v2/organizations/prov/agent-pools?${q({ q: 'prov-pool-2', 'page[size]': '100' })}`,
    );
    expect(found.json.data.map((p: { id: string }) => p.id)).toEqual([id]);
    expect(found.json.meta.pagination['next-page']).toBeNull();
    expect((await del(`/api/v2/agent-pools/${id}`)).status).toBe(204);
    expect((await del(`/api/v2/agent-pools/${id}`)).status).toBe(404);
  });
});

describe('tfe provider: pool scoping resources with tfe_workspace_settings (the documented example)', () => {
  it('allows a workspace, runs it on the pool through workspace settings, and tears down in reverse order', async () => {
    await createOrg(api, 'scoping');
    await setPoolLimit(api, 'scoping', 5);
    const pool = (
      await api.post('/api/v2/organizations/scoping/agent-pools', {
        data: { type: 'agent-pools', attributes: { name: 'private', 'organization-scoped': false } },
      })
    ).json.data;
    const ws = await createWorkspace(api, 'scoping', 'app');
    const proj = await createProject(api, 'scoping', 'team');

    // tfe_agent_pool_allowed_workspaces / _allowed_projects / _excluded_workspaces Create, then Read.
    const allowWs = await api.patch(`/api/v2/agent-pools/${pool.id}`, {
      data: { type: 'agent-pools', relationships: { 'allowed-workspaces': refs('workspaces', [ws.id]) } },
    });
    expect(allowWs.status, allowWs.text).toBe(200);
    const allowProj = await api.patch(`/api/v2/agent-pools/${pool.id}`, {
      data: { type: 'agent-pools', relationships: { 'allowed-projects': refs('projects', [proj.id]) } },
    });
    expect(allowProj.status).toBe(200);
    const read = (await api.get(`/api/v2/agent-pools/${pool.id}`)).json.data;
    expect(ids(read.relationships['allowed-workspaces'])).toEqual([ws.id]);
    expect(ids(read.relationships['allowed-projects'])).toEqual([proj.id]);

    // tfe_workspace_settings Create: read (include=effective_tag_bindings), then UpdateByID with everything it manages.
    expect((await api.get(`/api/v2/workspaces/${ws.id}?include=effective_tag_bindings`)).status).toBe(200);
    const settings = await api.patch(
      `/api/v2/workspaces/${ws.id}`,
      doc('workspaces', {
        'global-remote-state': false,
        'project-remote-state': false,
        'setting-overwrites': { 'execution-mode': true, 'agent-pool': true },
        'assessments-enabled': false,
        'auto-apply': false,
        'execution-mode': 'agent',
        'agent-pool-id': pool.id,
      }),
    );
    expect(settings.status, settings.text).toBe(200);
    const after = (await api.get(`/api/v2/workspaces/${ws.id}`)).json.data;
    expect(after.attributes['execution-mode']).toBe('agent');
    expect(after.relationships['agent-pool'].data).toEqual({ type: 'agent-pools', id: pool.id });
    // The provider dereferences both keys of what it reads back.
    expect(after.attributes['setting-overwrites']).toEqual({ 'execution-mode': true, 'agent-pool': true });
    expect(ids((await api.get(`/api/v2/agent-pools/${pool.id}`)).json.data.relationships.workspaces)).toEqual([ws.id]);

    // Switching to remote sends agent-pool-id "".
    const remote = await api.patch(
      `/api/v2/workspaces/${ws.id}`,
      doc('workspaces', {
        'execution-mode': 'remote',
        'agent-pool-id': '',
        'setting-overwrites': { 'execution-mode': true, 'agent-pool': true },
      }),
    );
    expect(remote.status, remote.text).toBe(200);
    expect(remote.json.data.relationships['agent-pool'].data).toBeNull();
    await api.patch(
      `/api/v2/workspaces/${ws.id}`,
      doc('workspaces', { 'execution-mode': 'agent', 'agent-pool-id': pool.id }),
    );

    // Destroy: settings Delete (execution-mode remote, overwrites false), then the scoping resources send data [], then
    // the pool.
    const reset = await api.patch(
      `/api/v2/workspaces/${ws.id}`,
      doc('workspaces', {
        'global-remote-state': false,
        'project-remote-state': false,
        'setting-overwrites': { 'execution-mode': false, 'agent-pool': false },
        'assessments-enabled': false,
        'auto-apply': false,
        'execution-mode': 'remote',
      }),
    );
    expect(reset.status, reset.text).toBe(200);
    expect(reset.json.data.relationships['agent-pool'].data).toBeNull();
    // Back to the organization's defaults (remote): false wins over the literal `remote` beside it.
    expect(reset.json.data.attributes['setting-overwrites']).toEqual({ 'execution-mode': false, 'agent-pool': false });
    for (const rel of ['allowed-workspaces', 'allowed-projects']) {
      const r = await api.patch(`/api/v2/agent-pools/${pool.id}`, {
        data: { type: 'agent-pools', relationships: { [rel]: { data: [] } } },
      });
      expect(r.status, r.text).toBe(200);
    }
    expect((await del(`/api/v2/agent-pools/${pool.id}`)).status).toBe(204);
  });
});

describe('tfe provider: tfe_workspace with agent_pool_id', () => {
  it('creates with what the provider sends, reads what it parses, and deletes the way it does', async () => {
    await createOrg(api, 'wsprov');
    await setPoolLimit(api, 'wsprov', 5);
    const pool = await createPool(api, 'wsprov', 'runners');
    const create = await api.post(
      '/api/v2/organizations/wsprov/workspaces',
      doc('workspaces', {
        name: 'svc',
        'allow-destroy-plan': true,
        'auto-apply': false,
        'auto-apply-run-trigger': false,
        description: '',
        'assessments-enabled': false,
        'file-triggers-enabled': true,
        'queue-all-runs': true,
        'speculative-enabled': true,
        'structured-run-output-enabled': true,
        'working-directory': '',
        'inherits-project-auto-destroy': true,
        'agent-pool-id': pool.id,
        'execution-mode': 'agent',
        'setting-overwrites': { 'execution-mode': true, 'agent-pool': true },
      }),
    );
    expect(create.status, create.text).toBe(201);
    const id = create.json.data.id;
    const read = await api.get(`/api/v2/workspaces/${id}`);
    expect(read.json.data).toEqual(create.json.data);
    // go-tfe's Workspaces.Read(org, name), used by the provider's import of "org/name".
    const byName = await api.get('/api/v2/organizations/wsprov/workspaces/svc');
    expect(byName.status).toBe(200);
    expect(byName.json.data).toEqual(read.json.data);
    expect((await api.get('/api/v2/organizations/wsprov/workspaces/nope')).status).toBe(404);
    expect(read.json.data).toMatchObject({
      attributes: { name: 'svc', 'execution-mode': 'agent', operations: true },
      relationships: {
        organization: { data: { type: 'organizations', id: 'wsprov' } },
        'agent-pool': { data: { type: 'agent-pools', id: pool.id } },
      },
    });
    // Delete dereferences permissions.can-force-delete (a nil struct would crash the provider) ...
    expect(read.json.data.attributes.permissions).toMatchObject({ 'can-force-delete': true, 'can-destroy': true });
    // ... and, without force_delete, deletes through the safe-delete action.
    const safe = await api.post(`/api/v2/workspaces/${id}/actions/safe-delete`, undefined, {
      headers: { 'content-type': JSONAPI },
    });
    expect(safe.status, safe.text).toBe(204);
    expect((await api.get(`/api/v2/workspaces/${id}`)).status).toBe(404);
    expect((await api.post(`/api/v2/workspaces/${id}/actions/safe-delete`)).status).toBe(404);
  });

  it('Update sends agent-pool-id only when configured; a pool the workspace may not use answers 422', async () => {
    const pool = await createPool(api, 'wsprov', 'closed', { 'organization-scoped': false });
    const ws = await createWorkspace(api, 'wsprov', 'other');
    const r = await api.patch(
      `/api/v2/workspaces/${ws.id}`,
      doc('workspaces', {
        name: 'other',
        'execution-mode': 'agent',
        'agent-pool-id': pool.id,
        'setting-overwrites': { 'agent-pool': true },
      }),
    );
    expect(r.status).toBe(422);
    expect(r.json.errors[0]).toMatchObject({ status: '422', source: { pointer: '/data/attributes/agent-pool-id' } });
    expect((await api.get(`/api/v2/workspaces/${ws.id}`)).json.data.attributes['execution-mode']).toBe('remote');
  });
});
