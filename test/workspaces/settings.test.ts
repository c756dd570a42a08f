import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient } from '../helpers/http';
import { JSONAPI, createOrg, createPool, createWorkspace, doc, setPoolLimit } from '../helpers/agents';

/*
 * Workspace settings and organization defaults as terraform-provider-tfe manages them
 * (tfe_workspace, tfe_workspace_settings, tfe_organization_default_settings): every attribute it
 * sends must come back unchanged from create, show, by-name and list, or its plans never settle.
 */

let d: TestDaemon;
let api: HttpClient;

beforeAll(async () => {
  d = await startTestDaemon();
  api = (await d.user('settings')).http.withContentType(JSONAPI);
  await createOrg(api, 'setorg');
  await setPoolLimit(api, 'setorg', 5);
});
afterAll(() => d.stop());

/** HCP Terraform's defaults for a workspace created with a name only. */
const HCP_DEFAULTS = {
  description: '',
  'allow-destroy-plan': true,
  'assessments-enabled': false,
  'auto-apply': false,
  'auto-apply-run-trigger': false,
  'auto-destroy-at': null,
  'auto-destroy-activity-duration': null,
  'file-triggers-enabled': true,
  'global-remote-state': false,
  'project-remote-state': false,
  'inherits-project-auto-destroy': true,
  'queue-all-runs': false,
  'source-name': null,
  'source-url': null,
  'speculative-enabled': true,
  'structured-run-output-enabled': true,
  'terraform-version': 'latest',
  'trigger-prefixes': [],
  'trigger-patterns': [],
  'working-directory': '',
};

/** What resourceTFEWorkspaceCreate sends with the provider's schema defaults and a few settings changed. */
const PROVIDER_CREATE = {
  'allow-destroy-plan': false,
  'auto-apply': true,
  'auto-apply-run-trigger': true,
  description: 'network stack',
  'assessments-enabled': true,
  'file-triggers-enabled': false,
  'queue-all-runs': true,
  'speculative-enabled': false,
  'structured-run-output-enabled': false,
  'working-directory': 'envs/prod',
  'global-remote-state': true,
  'inherits-project-auto-destroy': false,
  'auto-destroy-at': '2030-01-02T03:04:05Z',
  'auto-destroy-activity-duration': '14d',
  'source-name': 'Lab catalog',
  'source-url': 'https://catalog.lab.example/network',
  'terraform-version': '~> 1.9',
  'trigger-prefixes': ['modules/', 'shared/'],
  // Sent by the provider; Boxyard does not model it and ignores it.
  'setting-overwrites': { 'execution-mode': false, 'agent-pool': false },
};

/** What resourceTFEWorkspaceUpdate sends after the configuration changed. */
const PROVIDER_UPDATE = {
  name: 'network-2',
  'allow-destroy-plan': true,
  'auto-apply': false,
  'auto-apply-run-trigger': false,
  description: 'network stack, renamed',
  'file-triggers-enabled': true,
  'global-remote-state': false,
  'queue-all-runs': false,
  'speculative-enabled': true,
  'structured-run-output-enabled': true,
  'working-directory': '',
  'assessments-enabled': false,
  'inherits-project-auto-destroy': true,
  'auto-destroy-at': null,
  'auto-destroy-activity-duration': null,
  'terraform-version': '1.9.5',
  'trigger-patterns': ['/modules/**/*.tf'],
};

/** The same resource from show, by-name and list. */
async function readEverywhere(ws: { id: string; attributes: { name: string } }) {
  const byId = await api.get(`/api/v2/workspaces/${ws.id}`);
  const byName = await api.get(`/api/v2/organizations/setorg/workspaces/${ws.attributes.name}`);
  const list = await api.get(`/api/v2/organizations/setorg/workspaces?search%5Bname%5D=${ws.attributes.name}`);
  expect(byId.status).toBe(200);
  expect(byName.json.data).toEqual(byId.json.data);
  expect(list.json.data.find((w: { id: string }) => w.id === ws.id)).toEqual(byId.json.data);
  return byId.json.data;
}

describe('workspace settings', () => {
  it('a workspace created with a name only shows HCP Terraform defaults, identically everywhere', async () => {
    const ws = await createWorkspace(api, 'setorg', 'plain');
    expect(ws.attributes).toMatchObject(HCP_DEFAULTS);
    expect(await readEverywhere(ws)).toEqual(ws);
  });

  it('round-trips a provider-style create → read → update → read, every attribute echoed', async () => {
    const created = await api.post(
      '/api/v2/organizations/setorg/workspaces',
      doc('workspaces', { name: 'network', ...PROVIDER_CREATE }),
    );
    expect(created.status, created.text).toBe(201);
    // setting-overwrites false: the workspace takes its organization's mode and pool.
    expect(created.json.data.attributes).toMatchObject({ ...HCP_DEFAULTS, ...PROVIDER_CREATE, 'trigger-patterns': [] });
    expect(await readEverywhere(created.json.data)).toEqual(created.json.data);

    const updated = await api.patch(`/api/v2/workspaces/${created.json.data.id}`, doc('workspaces', PROVIDER_UPDATE));
    expect(updated.status, updated.text).toBe(200);
    // Switching to trigger patterns without sending the prefixes clears them (HCP refuses both).
    expect(updated.json.data.attributes).toMatchObject({
      ...PROVIDER_UPDATE,
      'trigger-prefixes': [],
      'source-name': 'Lab catalog',
      'source-url': 'https://catalog.lab.example/network',
    });
    expect(await readEverywhere(updated.json.data)).toEqual(updated.json.data);
  });

  it('leaves absent attributes unchanged; null clears nullable ones and lists', async () => {
    const ws = await createWorkspace(api, 'setorg', 'partial', {
      'auto-apply': true,
      'trigger-prefixes': ['a/'],
      'source-name': 'x',
      'source-url': 'http://x.example',
    });
    const r = await api.patch(`/api/v2/workspaces/${ws.id}`, doc('workspaces', { 'queue-all-runs': true }));
    expect(r.status).toBe(200);
    expect(r.json.data.attributes).toEqual({
      ...ws.attributes,
      'queue-all-runs': true,
      'updated-at': r.json.data.attributes['updated-at'],
    });
    const cleared = await api.patch(
      `/api/v2/workspaces/${ws.id}`,
      doc('workspaces', { 'trigger-prefixes': null, 'source-name': null, 'source-url': null }),
    );
    expect(cleared.json.data.attributes).toMatchObject({
      'trigger-prefixes': [],
      'source-name': null,
      'source-url': null,
      'auto-apply': true,
      'queue-all-runs': true,
    });
  });

  it('refuses wrong types with a 422 JSON:API error naming the attribute, and changes nothing', async () => {
    const ws = await createWorkspace(api, 'setorg', 'strict', { 'auto-apply': true, 'trigger-prefixes': ['keep/'] });
    const before = await readEverywhere(ws);
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ 'auto-apply': 'yes' }, 'auto-apply'],
      [{ 'queue-all-runs': null }, 'queue-all-runs'],
      [{ 'allow-destroy-plan': 1 }, 'allow-destroy-plan'],
      [{ 'trigger-prefixes': 'modules/' }, 'trigger-prefixes'],
      [{ 'trigger-patterns': [1, 2] }, 'trigger-patterns/0'],
      [{ 'auto-destroy-at': 'tomorrow' }, 'auto-destroy-at'],
      [{ 'auto-destroy-activity-duration': '2w' }, 'auto-destroy-activity-duration'],
      [{ 'source-url': 'ftp://files.example/x' }, 'source-url'],
      [{ 'terraform-version': 15 }, 'terraform-version'],
      [{ 'terraform-version': '1.9; rm -rf /' }, 'terraform-version'],
      [{ 'working-directory': ['envs'] }, 'working-directory'],
      [{ name: 'strict-renamed', 'speculative-enabled': 'false' }, 'speculative-enabled'],
    ];
    for (const [attributes, attr] of bad) {
      const r = await api.patch(`/api/v2/workspaces/${ws.id}`, doc('workspaces', attributes));
      expect(r.status, `${JSON.stringify(attributes)} → ${r.text}`).toBe(422);
      expect(r.json.errors[0]).toMatchObject({ status: '422', source: { pointer: `/data/attributes/${attr}` } });
      expect(typeof r.json.errors[0].detail).toBe('string');
    }
    const both = await api.patch(
      `/api/v2/workspaces/${ws.id}`,
      doc('workspaces', { 'trigger-prefixes': ['a/'], 'trigger-patterns': ['b/**'] }),
    );
    expect(both.status).toBe(422);
    expect(both.json.errors[0].detail).toMatch(/trigger-prefixes and trigger-patterns/);
    expect(await readEverywhere(ws)).toEqual(before);

    const badCreate = await api.post(
      '/api/v2/organizations/setorg/workspaces',
      doc('workspaces', { name: 'never', 'auto-apply': 'true' }),
    );
    expect(badCreate.status).toBe(422);
    expect((await api.get('/api/v2/organizations/setorg/workspaces/never')).status).toBe(404);
  });

  it('ignores attributes Boxyard does not know', async () => {
    const ws = await createWorkspace(api, 'setorg', 'lenient', { 'tag-names': ['a'], frobnicate: { x: 1 } });
    expect(ws.attributes).not.toHaveProperty('frobnicate');
    const r = await api.patch(
      `/api/v2/workspaces/${ws.id}`,
      doc('workspaces', { 'setting-overwrites': { 'execution-mode': true, 'agent-pool': true }, 'auto-apply': true }),
    );
    expect(r.status).toBe(200);
    expect(r.json.data.attributes['auto-apply']).toBe(true);
  });
});

describe('organization defaults (tfe_organization_default_settings)', () => {
  const org = () => api.get('/api/v2/organizations/setorg');

  it('starts at remote with no default pool, in show and list alike', async () => {
    const r = await org();
    expect(r.json.data.attributes['default-execution-mode']).toBe('remote');
    expect(r.json.data.relationships['default-agent-pool']).toEqual({ data: null });
    const list = await api.get('/api/v2/organizations');
    expect(list.json.data.find((o: { id: string }) => o.id === 'setorg')).toEqual(r.json.data);
  });

  it('round-trips agent + default pool; a reset to remote drops the pool; the default pool is not deleted', async () => {
    const pool = await createPool(api, 'setorg', 'defaults');
    const set = await api.patch(
      '/api/v2/organizations/setorg',
      doc(
        'organizations',
        { 'default-execution-mode': 'agent' },
        { 'default-agent-pool': { data: { type: 'agent-pools', id: pool.id } } },
      ),
    );
    expect(set.status, set.text).toBe(200);
    expect(set.json.data.attributes['default-execution-mode']).toBe('agent');
    expect(set.json.data.relationships['default-agent-pool']).toEqual({ data: { type: 'agent-pools', id: pool.id } });
    expect((await org()).json.data).toEqual(set.json.data);

    // Absent: unchanged.
    const other = await api.patch('/api/v2/organizations/setorg', doc('organizations', { 'session-timeout': 60 }));
    expect(other.json.data.relationships['default-agent-pool'].data.id).toBe(pool.id);

    // The provider's reset sends only the mode and relies on the pool being dropped.
    const reset = await api.patch(
      '/api/v2/organizations/setorg',
      doc('organizations', { 'default-execution-mode': 'remote' }),
    );
    expect(reset.json.data.attributes['default-execution-mode']).toBe('remote');
    expect(reset.json.data.relationships['default-agent-pool']).toEqual({ data: null });

    // While it is the default (and the inheriting workspaces run on it), the pool stays.
    await api.patch(
      '/api/v2/organizations/setorg',
      doc(
        'organizations',
        { 'default-execution-mode': 'agent' },
        { 'default-agent-pool': { data: { type: 'agent-pools', id: pool.id } } },
      ),
    );
    const refused = await api.delete(`/api/v2/agent-pools/${pool.id}`, { headers: { 'content-type': JSONAPI } });
    expect(refused.status).toBe(422);
    expect((await org()).json.data.relationships['default-agent-pool'].data.id).toBe(pool.id);
    await api.patch('/api/v2/organizations/setorg', doc('organizations', { 'default-execution-mode': 'remote' }));
    expect((await api.delete(`/api/v2/agent-pools/${pool.id}`, { headers: { 'content-type': JSONAPI } })).status).toBe(
      204,
    );
  });

  it('refuses a pool of another organization, a pool without agent mode and unknown modes (422), changing nothing', async () => {
    const owner2 = (await d.user('other-owner')).http.withContentType(JSONAPI);
    await createOrg(owner2, 'elsewhere');
    const foreign = await createPool(owner2, 'elsewhere', 'theirs');
    const mine = await createPool(api, 'setorg', 'mine');
    const before = (await org()).json.data;
    const attempts: Array<[Record<string, unknown>, Record<string, unknown> | undefined, string]> = [
      [
        { 'default-execution-mode': 'agent' },
        { 'default-agent-pool': { data: { type: 'agent-pools', id: foreign.id } } },
        '/data/relationships/default-agent-pool/data/id',
      ],
      [
        { 'default-execution-mode': 'agent' },
        { 'default-agent-pool': { data: { type: 'agent-pools', id: 'apool-nonexisting' } } },
        '/data/relationships/default-agent-pool/data/id',
      ],
      [
        { 'default-execution-mode': 'local' },
        { 'default-agent-pool': { data: { type: 'agent-pools', id: mine.id } } },
        '/data/attributes/default-execution-mode',
      ],
      [{ 'default-execution-mode': 'cloud' }, undefined, '/data/attributes/default-execution-mode'],
      [{ 'default-execution-mode': true, 'session-timeout': 5 }, undefined, '/data/attributes/default-execution-mode'],
    ];
    for (const [attributes, relationships, pointer] of attempts) {
      const r = await api.patch('/api/v2/organizations/setorg', doc('organizations', attributes, relationships));
      expect(r.status, r.text).toBe(422);
      expect(r.json.errors[0]).toMatchObject({ status: '422', source: { pointer } });
    }
    expect((await org()).json.data).toEqual(before);
    const create = await api.post(
      '/api/v2/organizations',
      doc(
        'organizations',
        { name: 'with-foreign', email: 'a@b.example', 'default-execution-mode': 'agent' },
        { 'default-agent-pool': { data: { type: 'agent-pools', id: foreign.id } } },
      ),
    );
    expect(create.status).toBe(422);
    expect((await api.get('/api/v2/organizations/with-foreign')).status).toBe(404);
  });

  it('creates an organization with a default execution mode', async () => {
    const created = await createOrg(api, 'localorg', { 'default-execution-mode': 'local' });
    expect(created.attributes['default-execution-mode']).toBe('local');
    expect((await api.get('/api/v2/organizations/localorg')).json.data).toEqual(created);
  });
});
