import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient } from '../helpers/http';
import {
  JSONAPI,
  createAgentToken,
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

describe('go-tfe client setup', () => {
  it('answers GET /ping with the TFP-API-Version header go-tfe reads', async () => {
    const r = await api.get('/api/v2/ping');
    expect(r.status).toBe(200);
    expect(r.headers.get('tfp-api-version')).toMatch(/^2\.\d+$/);
  });
});

describe('organizations as newer go-tfe sends them', () => {
  it('creates with the newer attributes (ignored where Boxyard has no such setting), reads, updates, deletes', async () => {
    const create = await api.post(
      '/api/v2/organizations',
      doc('organizations', {
        name: 'tst-neworg',
        email: 'owner@tfe.local',
        'session-timeout': 20,
        'session-remember': 30,
        'assessments-enforced': false,
        'allow-force-delete-workspaces': true,
        'default-execution-mode': 'remote',
        'speculative-plan-management-enabled': true,
        'send-passing-statuses-for-untriggered-speculative-plans': false,
        'aggregated-commit-status-enabled': true,
        'stacks-enabled': false,
        'cost-estimation-enabled': true,
      }),
    );
    expect(create.status).toBe(201);
    expect(create.json.data).toMatchObject({
      type: 'organizations',
      id: 'tst-neworg',
      attributes: { name: 'tst-neworg', email: 'owner@tfe.local', 'session-timeout': 20, 'session-remember': 30 },
    });
    expect(create.json.data.attributes.permissions).toMatchObject({ 'can-update': true, 'can-destroy': true });
    const read = await api.get('/api/v2/organizations/tst-neworg');
    expect(read.status).toBe(200);
    expect(read.json.data).toEqual(create.json.data);

    const update = await api.patch(
      '/api/v2/organizations/tst-neworg',
      doc('organizations', {
        name: 'tst-renamed',
        email: 'new@tfe.local',
        'session-timeout': 3600,
        'session-remember': 3600,
        'assessments-enforced': true,
      }),
    );
    expect(update.status).toBe(200);
    expect(update.json.data).toMatchObject({
      id: 'tst-renamed',
      attributes: { name: 'tst-renamed', email: 'new@tfe.local', 'session-timeout': 3600, 'session-remember': 3600 },
    });
    expect((await api.get('/api/v2/organizations/tst-neworg')).status).toBe(404);

    // Newer OrganizationUpdateOptions may carry default-execution-mode and a default-agent-pool relationship.
    const pool = await createPool(api, 'tst-renamed', 'default-runners');
    const defaults = await api.patch(
      '/api/v2/organizations/tst-renamed',
      doc(
        'organizations',
        { 'default-execution-mode': 'agent' },
        { 'default-agent-pool': { data: { type: 'agent-pools', id: pool.id } } },
      ),
    );
    expect(defaults.status, defaults.text).toBe(200);
    // tfe_organization_default_settings reads both back (modelFromOrganizationsV2).
    expect(defaults.json.data.attributes['default-execution-mode']).toBe('agent');
    expect(defaults.json.data.relationships['default-agent-pool']).toEqual({
      data: { type: 'agent-pools', id: pool.id },
    });
    expect((await api.get('/api/v2/organizations/tst-renamed')).json.data).toEqual(defaults.json.data);

    expect((await del('/api/v2/organizations/tst-renamed')).status).toBe(204);
    expect((await api.get('/api/v2/organizations/tst-renamed')).status).toBe(404);
  });
});

describe('agent pools as go-tfe v1 drives them (TestAgentPools*)', () => {
  // The resources as the API created them (wire documents).
  let pool: Awaited<ReturnType<typeof createPool>>;
  let ws1: Awaited<ReturnType<typeof createWorkspace>>;
  let ws2: Awaited<ReturnType<typeof createWorkspace>>;
  let proj1: Awaited<ReturnType<typeof createProject>>;

  beforeAll(async () => {
    await createOrg(api, 'gotfe');
    // go-tfe's tests call upgradeOrganizationSubscription (admin endpoints Boxyard does not serve); the pool limit is
    // Boxyard's equivalent.
    await setPoolLimit(api, 'gotfe', 20);
    pool = await createPool(api, 'gotfe', 'cool-pool');
    ws1 = await createWorkspace(api, 'gotfe', 'ws-one');
    ws2 = await createWorkspace(api, 'gotfe', 'ws-two');
    proj1 = await createProject(api, 'gotfe', 'proj-one');
  });

  it('serializes a pool identically in create, read and list, with [] relationships and the organization', async () => {
    expect(pool).toMatchObject({
      type: 'agent-pools',
      attributes: { name: 'cool-pool', 'organization-scoped': true, 'agent-count': 0 },
      relationships: {
        organization: { data: { type: 'organizations', id: 'gotfe' } },
        workspaces: { data: [] },
        'allowed-workspaces': { data: [] },
        'allowed-projects': { data: [] },
        'excluded-workspaces': { data: [] },
      },
    });
    expect(Number.isNaN(Date.parse(pool.attributes['created-at']))).toBe(false);
    expect((await api.get(`/api/v2/agent-pools/${pool.id}`)).json.data).toEqual(pool);
    const list = await api.get('/api/v2/organizations/gotfe/agent-pools');
    expect(list.status).toBe(200);
    expect(list.json.data).toContainEqual(pool);
    expect(list.json.meta.pagination).toMatchObject({ 'current-page': 1, 'total-count': 1 });
    expect(list.json.included).toBeUndefined();
  });

  it('answers a page past the end with empty data, the requested page and the true total', async () => {
    const r = await api.get(
      `/api/v2/organizations/gotfe/agent-pools?${q({ 'page[number]': '999', 'page[size]': '100' })}`,
    );
    expect(r.status).toBe(200);
    expect(r.json.data).toEqual([]);
    expect(r.json.meta.pagination).toMatchObject({ 'current-page': 999, 'total-count': 1 });
  });

  it('filters by q (the pool name)', async () => {
    expect((await api.get(`/api/v2/organizations/gotfe/agent-pools?${q({ q: 'cool-pool' })}`)).json.data).toHaveLength(
      1,
    );
    expect(
      (await api.get(`/api/v2/organizations/gotfe/agent-pools?${q({ q: 'cool-poolnot_going_to_match' })}`)).json.data,
    ).toEqual([]);
  });

  it('creates with organization-scoped false + allowed-workspaces and filters by filter[allowed_workspaces][name]', async () => {
    const body = (name: string, ws: string) =>
      doc('agent-pools', { name, 'organization-scoped': false }, { 'allowed-workspaces': refs('workspaces', [ws]) });
    const a = await api.post('/api/v2/organizations/gotfe/agent-pools', body('a-pool', ws1.id));
    const b = await api.post('/api/v2/organizations/gotfe/agent-pools', body('b-pool', ws2.id));
    expect(a.status).toBe(201);
    expect(ids(a.json.data.relationships['allowed-workspaces'])).toEqual([ws1.id]);
    expect(a.json.data.attributes['organization-scoped']).toBe(false);
    for (const [ws, own] of [
      [ws1, a],
      [ws2, b],
    ] as const) {
      for (const key of ['filter[allowed_workspaces][name]', 'filter[allowed-workspaces][name]']) {
        const r = await api.get(`/api/v2/organizations/gotfe/agent-pools?${q({ [key]: ws.attributes.name })}`);
        expect(r.status).toBe(200);
        expect(r.json.data).toContainEqual(own.json.data);
        expect(r.json.data).toContainEqual(pool);
        expect(r.json.meta.pagination['total-count']).toBe(2);
      }
    }
    expect((await del(`/api/v2/agent-pools/${a.json.data.id}`)).status).toBe(204);
    expect((await del(`/api/v2/agent-pools/${b.json.data.id}`)).status).toBe(204);
  });

  it('creates with allowed-projects and filters by filter[allowed_projects][name]', async () => {
    const a = await api.post(
      '/api/v2/organizations/gotfe/agent-pools',
      doc(
        'agent-pools',
        { name: 'a-pool', 'organization-scoped': false },
        { 'allowed-projects': refs('projects', [proj1.id]) },
      ),
    );
    expect(a.status).toBe(201);
    expect(ids(a.json.data.relationships['allowed-projects'])).toEqual([proj1.id]);
    const r = await api.get(
      `/api/v2/organizations/gotfe/agent-pools?${q({ 'filter[allowed_projects][name]': 'proj-one' })}`,
    );
    expect(r.json.data).toContainEqual(a.json.data);
    expect(r.json.data).toContainEqual(pool);
    expect(r.json.meta.pagination['total-count']).toBe(2);
    expect((await del(`/api/v2/agent-pools/${a.json.data.id}`)).status).toBe(204);
  });

  it('fills the workspaces relationship without include, and include=workspaces adds them to included', async () => {
    const ws = await api.post(
      '/api/v2/organizations/gotfe/workspaces',
      doc('workspaces', { name: 'bar', 'execution-mode': 'agent', 'agent-pool-id': pool.id }),
    );
    expect(ws.status).toBe(201);
    expect(ws.json.data.relationships['agent-pool'].data).toEqual({ type: 'agent-pools', id: pool.id });
    // go-tfe's ReadWithOptions builds its request without the options: the relationship must be there regardless.
    const plain = await api.get(`/api/v2/agent-pools/${pool.id}`);
    expect(ids(plain.json.data.relationships.workspaces)).toEqual([ws.json.data.id]);
    const show = await api.get(`/api/v2/agent-pools/${pool.id}?include=workspaces`);
    expect(show.json.included.map((x: { id: string }) => x.id)).toEqual([ws.json.data.id]);
    const list = await api.get('/api/v2/organizations/gotfe/agent-pools?include=workspaces');
    expect(ids(list.json.data[0].relationships.workspaces)).toEqual([ws.json.data.id]);
    expect(list.json.included[0]).toMatchObject({ type: 'workspaces', id: ws.json.data.id });
    // The test's cleanup deletes the workspace; the pool then serializes as it did at creation.
    expect((await del(`/api/v2/workspaces/${ws.json.data.id}`)).status).toBe(204);
    expect((await api.get(`/api/v2/agent-pools/${pool.id}`)).json.data).toEqual(pool);
  });

  it('Update with only a name keeps the allowed and excluded lists', async () => {
    const ex = await createWorkspace(api, 'gotfe', 'ws-excluded');
    const before = await api.post(
      '/api/v2/organizations/gotfe/agent-pools',
      doc(
        'agent-pools',
        { name: 'a-pool', 'organization-scoped': false },
        {
          'allowed-workspaces': refs('workspaces', [ws1.id]),
          'allowed-projects': refs('projects', [proj1.id]),
          'excluded-workspaces': refs('workspaces', [ex.id]),
        },
      ),
    );
    expect(before.status).toBe(201);
    const after = await api.patch(
      `/api/v2/agent-pools/${before.json.data.id}`,
      doc('agent-pools', { name: 'updated-key-name' }),
    );
    expect(after.status).toBe(200);
    expect(after.json.data.attributes.name).toBe('updated-key-name');
    expect(ids(after.json.data.relationships['allowed-workspaces'])).toEqual([ws1.id]);
    expect(ids(after.json.data.relationships['allowed-projects'])).toEqual([proj1.id]);
    expect(ids(after.json.data.relationships['excluded-workspaces'])).toEqual([ex.id]);
    expect((await del(`/api/v2/agent-pools/${before.json.data.id}`)).status).toBe(204);
  });

  it('Update with organization-scoped false, or with one relationship and no name', async () => {
    const p = await createPool(api, 'gotfe', 'scope-me');
    const scoped = await api.patch(
      `/api/v2/agent-pools/${p.id}`,
      doc('agent-pools', { name: 'scope-me', 'organization-scoped': false }),
    );
    expect(scoped.json.data.attributes['organization-scoped']).toBe(false);
    for (const [rel, type, id] of [
      ['allowed-workspaces', 'workspaces', ws1.id],
      ['allowed-projects', 'projects', proj1.id],
      ['excluded-workspaces', 'workspaces', ws2.id],
    ]) {
      const r = await api.patch(`/api/v2/agent-pools/${p.id}`, {
        data: { type: 'agent-pools', attributes: {}, relationships: { [rel]: refs(type, [id]) } },
      });
      expect(r.status, r.text).toBe(200);
      expect(r.json.data.attributes.name).toBe('scope-me');
      expect(ids(r.json.data.relationships[rel])).toEqual([id]);
    }
    expect((await del(`/api/v2/agent-pools/${p.id}`)).status).toBe(204);
  });

  it('UpdateAllowedWorkspaces/Projects/ExcludedWorkspaces: one relationship, no attributes; data [] clears it', async () => {
    for (const [rel, type, id] of [
      ['allowed-workspaces', 'workspaces', ws1.id],
      ['allowed-projects', 'projects', proj1.id],
      ['excluded-workspaces', 'workspaces', ws1.id],
    ]) {
      const before = await api.post(
        '/api/v2/organizations/gotfe/agent-pools',
        doc('agent-pools', { name: 'a-pool', 'organization-scoped': false }, { [rel]: refs(type, [id]) }),
      );
      expect(before.status).toBe(201);
      const cleared = await api.patch(`/api/v2/agent-pools/${before.json.data.id}`, {
        data: { type: 'agent-pools', relationships: { [rel]: { data: [] } } },
      });
      expect(cleared.status, cleared.text).toBe(200);
      expect(cleared.json.data.id).toBe(before.json.data.id);
      expect(cleared.json.data.attributes.name).toBe('a-pool');
      expect(cleared.json.data.relationships[rel]).toEqual({ data: [] });
      expect((await del(`/api/v2/agent-pools/${before.json.data.id}`)).status).toBe(204);
    }
  });

  it('Delete: 204, then 404 for read and for a second delete; unknown ids answer 404', async () => {
    const p = await createPool(api, 'gotfe', 'doomed');
    expect((await del(`/api/v2/agent-pools/${p.id}`)).status).toBe(204);
    expect((await api.get(`/api/v2/agent-pools/${p.id}`)).status).toBe(404);
    expect((await del(`/api/v2/agent-pools/${p.id}`)).status).toBe(404);
    const missing = await api.get('/api/v2/agent-pools/nonexisting');
    expect(missing.status).toBe(404);
    expect(missing.json.errors[0]).toMatchObject({ status: '404' });
  });
});

describe('agent tokens and agents as go-tfe v1 and tfe_agent_token use them', () => {
  let pool: { id: string };
  beforeAll(async () => {
    await createOrg(api, 'tokens');
    pool = await createPool(api, 'tokens', 'tok-pool');
  });

  it('creates with data.type agent-tokens, reads the same struct without the secret, lists and deletes', async () => {
    const created = await api.post(
      `/api/v2/agent-pools/${pool.id}/authentication-tokens`,
      doc('agent-tokens', { description: 'ci' }),
    );
    expect(created.status).toBe(201);
    const token = created.json.data;
    expect(token).toMatchObject({ type: 'authentication-tokens', attributes: { description: 'ci' } });
    expect(token.attributes.token).toEqual(expect.any(String));
    // TestAgentTokensRead empties Token and compares the whole struct (created-at, last-used-at, created-by).
    const { token: _secret, ...withoutSecret } = token.attributes;
    const read = await api.get(`/api/v2/authentication-tokens/${token.id}`);
    expect(read.status).toBe(200);
    expect(read.json.data).toEqual({ ...token, attributes: withoutSecret });
    const list = await api.get(`/api/v2/agent-pools/${pool.id}/authentication-tokens`);
    expect(list.json.data).toContainEqual(read.json.data);
    expect((await del(`/api/v2/authentication-tokens/${token.id}`)).status).toBe(204);
    // tfe_agent_token treats 404 on read and delete as "already gone".
    expect((await api.get(`/api/v2/authentication-tokens/${token.id}`)).status).toBe(404);
    expect((await del(`/api/v2/authentication-tokens/${token.id}`)).status).toBe(404);
  });

  it('lists agents with filter[last-ping-since] as go-querystring formats a time.Time (RFC 3339)', async () => {
    const { token } = await createAgentToken(api, pool.id, 'agent');
    const reg = await d.http.post(
      '/api/agent/register',
      { name: 'rack-1' },
      { headers: { authorization: `Bearer ${token}` } },
    );
    expect(reg.status).toBe(201);
    const agentId = reg.json.agent.id;
    const list = (since: string) =>
      api.get(`/api/v2/agent-pools/${pool.id}/agents?${q({ 'filter[last-ping-since]': since })}`);
    const past = await list('2020-01-02T03:04:05Z');
    expect(past.status).toBe(200);
    expect(past.json.data).toHaveLength(1);
    expect(past.json.data[0]).toMatchObject({
      type: 'agents',
      id: agentId,
      attributes: { name: 'rack-1', status: 'idle' },
    });
    expect(past.json.meta.pagination).toMatchObject({ 'current-page': 1, 'total-count': 1 });
    expect((await list('2020-01-02T05:04:05+02:00')).json.data).toHaveLength(1);
    expect((await list('2999-01-02T03:04:05Z')).json.data).toEqual([]);
    expect((await api.get(`/api/v2/agents/${agentId}`)).json.data).toEqual(past.json.data[0]);
  });
});
