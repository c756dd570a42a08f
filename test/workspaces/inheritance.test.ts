import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient } from '../helpers/http';
import { JSONAPI, createOrg, createPool, createWorkspace, doc, ids, setPoolLimit } from '../helpers/agents';

/*
 * Workspaces inherit their organization's default execution mode and agent pool unless
 * their `setting-overwrites` say otherwise, as HCP Terraform's do. The request bodies are those
 * terraform-provider-tfe sends (resource_tfe_workspace_settings.go, resource_tfe_organization_
 * default_settings.go, read at 62d27c75, through go-tfe v1.110.0's serializer).
 */

let d: TestDaemon;
let api: HttpClient;
let p1: string;
let p2: string;
let other: string;

beforeAll(async () => {
  d = await startTestDaemon();
  api = (await d.user('inherit')).http.withContentType(JSONAPI);
  await createOrg(api, 'inh');
  await createOrg(api, 'elsewhere');
  await setPoolLimit(api, 'inh', 5);
  p1 = (await createPool(api, 'inh', 'p1')).id;
  p2 = (await createPool(api, 'inh', 'p2')).id;
  other = (await createPool(api, 'elsewhere', 'theirs')).id;
});
afterAll(() => d.stop());

const ws = async (id: string) => (await api.get(`/api/v2/workspaces/${id}`)).json.data;
const execution = async (id: string) => {
  const w = await ws(id);
  return {
    mode: w.attributes['execution-mode'],
    pool: w.relationships['agent-pool'].data?.id ?? null,
    poolId: w.attributes['agent-pool-id'],
    overwrites: w.attributes['setting-overwrites'],
  };
};
const poolWorkspaces = async (id: string) =>
  ids((await api.get(`/api/v2/agent-pools/${id}`)).json.data.relationships.workspaces).sort();
/** tfe_organization_default_settings' create (go-tfe v2: attributes, then the relationship). */
const orgDefaults = (mode: string, pool?: string) =>
  api.patch('/api/v2/organizations/inh', {
    data: {
      attributes: { 'default-execution-mode': mode },
      ...(pool ? { relationships: { 'default-agent-pool': { data: { id: pool, type: 'agent-pools' } } } } : {}),
      type: 'organizations',
    },
  });
/** tfe_workspace_settings' PATCH: its four booleans always, a mode with its pool ("" for none) and overwrites. */
const settings = (id: string, o: { mode?: string; pool?: string; overwrites: boolean; remote?: boolean }) =>
  api.patch(`/api/v2/workspaces/${id}`, {
    data: {
      type: 'workspaces',
      attributes: {
        ...(o.mode
          ? { 'agent-pool-id': o.pool ?? '', 'execution-mode': o.mode }
          : o.remote
            ? { 'execution-mode': 'remote' }
            : {}),
        'setting-overwrites': { 'execution-mode': o.overwrites, 'agent-pool': o.overwrites },
        'global-remote-state': false,
        'project-remote-state': false,
        'auto-apply': false,
        'assessments-enabled': false,
      },
    },
  });

describe("workspaces and their organization's defaults", () => {
  let inherits: string;
  let local: string;

  it("a workspace made without a mode takes the organization's, and says so", async () => {
    inherits = (await createWorkspace(api, 'inh', 'inherits')).id;
    local = (await createWorkspace(api, 'inh', 'local', { 'execution-mode': 'local' })).id;
    expect(await execution(inherits)).toEqual({
      mode: 'remote',
      pool: null,
      poolId: null,
      overwrites: { 'execution-mode': false, 'agent-pool': false },
    });
    expect(await execution(local)).toEqual({
      mode: 'local',
      pool: null,
      poolId: null,
      overwrites: { 'execution-mode': true, 'agent-pool': false },
    });
  });

  it('changing the defaults changes every inheriting workspace at once, and no other; pools list them', async () => {
    const set = await orgDefaults('agent', p1);
    expect(set.status, set.text).toBe(200);
    expect(set.json.data.relationships['default-agent-pool'].data).toEqual({ type: 'agent-pools', id: p1 });
    expect(await execution(inherits)).toMatchObject({
      mode: 'agent',
      pool: p1,
      poolId: p1,
      overwrites: { 'execution-mode': false, 'agent-pool': false },
    });
    expect(await execution(local)).toMatchObject({ mode: 'local', pool: null });
    expect(await poolWorkspaces(p1)).toEqual([inherits]);
    const allowed = await api.get(
      '/api/v2/organizations/inh/agent-pools?filter%5Ballowed_workspaces%5D%5Bname%5D=inherits&include=workspaces',
    );
    expect(allowed.json.data.map((p: { id: string }) => p.id).sort()).toEqual([p1, p2].sort());
    expect(allowed.json.included.map((w: { id: string }) => w.id)).toEqual([inherits]);
    // A workspace made now inherits the pool as well.
    const later = await createWorkspace(api, 'inh', 'later');
    expect(later.attributes).toMatchObject({ 'execution-mode': 'agent', 'agent-pool-id': p1 });
    expect((await orgDefaults('agent', p2)).status).toBe(200);
    expect(await poolWorkspaces(p2)).toEqual([inherits, later.id].sort());
    expect(await poolWorkspaces(p1)).toEqual([]);
  });

  it('a value of its own marks it overwritten; setting-overwrites false hands it back', async () => {
    let r = await api.patch(`/api/v2/workspaces/${inherits}`, doc('workspaces', { 'agent-pool-id': p1 }));
    expect(r.status, r.text).toBe(200);
    expect(await execution(inherits)).toMatchObject({
      mode: 'agent',
      pool: p1,
      overwrites: { 'execution-mode': true, 'agent-pool': true },
    });
    expect((await orgDefaults('agent', p2)).status).toBe(200);
    expect(await execution(inherits)).toMatchObject({ pool: p1 });
    r = await api.patch(
      `/api/v2/workspaces/${inherits}`,
      doc('workspaces', { 'setting-overwrites': { 'execution-mode': false, 'agent-pool': false } }),
    );
    expect(r.status, r.text).toBe(200);
    expect(await execution(inherits)).toMatchObject({
      mode: 'agent',
      pool: p2,
      overwrites: { 'execution-mode': false, 'agent-pool': false },
    });
    // A mode of its own with the organization's pool (tfe_workspace sends one overwrite at a time).
    r = await api.patch(
      `/api/v2/workspaces/${local}`,
      doc('workspaces', { 'execution-mode': 'agent', 'setting-overwrites': { 'execution-mode': true } }),
    );
    expect(r.status, r.text).toBe(200);
    expect(await execution(local)).toMatchObject({
      mode: 'agent',
      pool: p2,
      overwrites: { 'execution-mode': true, 'agent-pool': false },
    });
    r = await api.patch(`/api/v2/workspaces/${local}`, doc('workspaces', { 'execution-mode': 'local' }));
    expect(await execution(local)).toMatchObject({ mode: 'local', pool: null });
  });

  it('replays tfe_workspace_settings: a mode of its own, local, then none (the default again), and its delete', async () => {
    const id = (await createWorkspace(api, 'inh', 'managed')).id;
    // Create with no mode in the config: `execution-mode: remote` and overwrites false together; false wins.
    let r = await settings(id, { overwrites: false, remote: true });
    expect(r.status, r.text).toBe(200);
    expect(r.json.data.attributes).toMatchObject({
      'execution-mode': 'agent',
      'setting-overwrites': { 'execution-mode': false, 'agent-pool': false },
    });
    r = await settings(id, { mode: 'agent', pool: p1, overwrites: true });
    expect(r.json.data.attributes).toMatchObject({
      'execution-mode': 'agent',
      'agent-pool-id': p1,
      'setting-overwrites': { 'execution-mode': true, 'agent-pool': true },
    });
    expect(r.json.data.relationships['agent-pool'].data).toEqual({ type: 'agent-pools', id: p1 });
    r = await settings(id, { mode: 'local', overwrites: true });
    expect(r.json.data.attributes).toMatchObject({
      'execution-mode': 'local',
      'agent-pool-id': null,
      'setting-overwrites': { 'execution-mode': true, 'agent-pool': true },
    });
    r = await settings(id, { overwrites: false });
    expect(r.json.data.attributes).toMatchObject({
      'execution-mode': 'agent',
      'agent-pool-id': p2,
      'setting-overwrites': { 'execution-mode': false, 'agent-pool': false },
    });
    r = await settings(id, { overwrites: false, remote: true });
    expect(r.json.data.attributes).toMatchObject({ 'execution-mode': 'agent', 'agent-pool-id': p2 });
  });

  it("replays tfe_organization_default_settings' delete: remote, the pool dropped, inheriting workspaces with it", async () => {
    const r = await api.patch('/api/v2/organizations/inh', {
      data: { attributes: { 'default-execution-mode': 'remote' }, type: 'organizations' },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.json.data.relationships['default-agent-pool']).toEqual({ data: null });
    expect(await execution(inherits)).toMatchObject({ mode: 'remote', pool: null, poolId: null });
    expect(await poolWorkspaces(p2)).toEqual([]);
    expect((await orgDefaults('agent', p2)).status).toBe(200);
  });
});

describe('bad input changes nothing', () => {
  const snapshot = async () => ({
    org: (await api.get('/api/v2/organizations/inh')).json.data,
    workspaces: (await api.get('/api/v2/organizations/inh/workspaces?page%5Bsize%5D=100')).json.data,
    pools: (await api.get('/api/v2/organizations/inh/agent-pools')).json.data,
  });

  it('a default pool of another organization, or agent mode with no pool anywhere', async () => {
    const before = await snapshot();
    let r = await orgDefaults('agent', other);
    expect(r.status).toBe(422);
    expect(r.json.errors[0]).toMatchObject({
      status: '422',
      source: { pointer: '/data/relationships/default-agent-pool/data/id' },
    });
    r = await api.patch(
      '/api/v2/organizations/inh',
      doc('organizations', { 'default-execution-mode': 'agent' }, { 'default-agent-pool': { data: null } }),
    );
    expect(r.status).toBe(422);
    expect(r.json.errors[0].detail).toMatch(/needs a default-agent-pool/);
    expect(await snapshot()).toEqual(before);
  });

  it('an overwrite of an unknown setting, or of a known one with a wrong value', async () => {
    const id = (await api.get('/api/v2/organizations/inh/workspaces?search%5Bname%5D=inherits')).json.data[0].id;
    const before = await snapshot();
    let r = await api.patch(
      `/api/v2/workspaces/${id}`,
      doc('workspaces', { 'setting-overwrites': { 'terraform-version': true } }),
    );
    expect(r.status).toBe(422);
    expect(r.json.errors[0].source.pointer).toMatch(/^\/data\/attributes\/setting-overwrites/);
    r = await api.patch(
      `/api/v2/workspaces/${id}`,
      doc('workspaces', { 'setting-overwrites': { 'execution-mode': 'yes' } }),
    );
    expect(r.status).toBe(422);
    expect(r.json.errors[0].source.pointer).toBe('/data/attributes/setting-overwrites/execution-mode');
    expect(await snapshot()).toEqual(before);
  });

  it('agent mode of its own where the organization has no default pool', async () => {
    expect(
      (
        await api.patch('/api/v2/organizations/inh', {
          data: { attributes: { 'default-execution-mode': 'remote' }, type: 'organizations' },
        })
      ).status,
    ).toBe(200);
    const id = (await createWorkspace(api, 'inh', 'poolless')).id;
    const before = await snapshot();
    const r = await api.patch(`/api/v2/workspaces/${id}`, doc('workspaces', { 'execution-mode': 'agent' }));
    expect(r.status).toBe(422);
    expect(r.json.errors[0]).toMatchObject({ source: { pointer: '/data/attributes/agent-pool-id' } });
    expect(r.json.errors[0].detail).toMatch(/has no default agent pool/);
    expect(await snapshot()).toEqual(before);
    expect((await orgDefaults('agent', p2)).status).toBe(200);
  });

  it('deleting the default pool, or one inheriting workspaces run on; a default pool an inheriting workspace may not use', async () => {
    const before = await snapshot();
    let r = await api.delete(`/api/v2/agent-pools/${p2}`);
    expect(r.status).toBe(422);
    expect(r.json.errors[0].detail).toMatch(/used by \d+ workspace\(s\)/);
    const p3 = (await createPool(api, 'inh', 'p3', { 'organization-scoped': false })).id;
    const afterPool = await snapshot();
    r = await orgDefaults('agent', p3);
    expect(r.status).toBe(422);
    expect(r.json.errors[0].detail).toMatch(/takes the organization's default agent pool and may not use "p3"/);
    expect(await snapshot()).toEqual(afterPool);
    expect(afterPool.org).toEqual(before.org);
    // Scoping the default pool away from the workspaces that inherit it is refused like any other use.
    r = await api.patch(`/api/v2/agent-pools/${p2}`, doc('agent-pools', { 'organization-scoped': false }));
    expect(r.status).toBe(422);
    expect((await api.get(`/api/v2/agent-pools/${p2}`)).json.data.attributes['organization-scoped']).toBe(true);
    // No workspace on it, but the default all the same.
    for (const w of before.workspaces)
      await api.patch(`/api/v2/workspaces/${w.id}`, doc('workspaces', { 'execution-mode': 'remote' }));
    expect(await poolWorkspaces(p2)).toEqual([]);
    r = await api.delete(`/api/v2/agent-pools/${p2}`);
    expect(r.status).toBe(422);
    expect(r.json.errors[0].detail).toMatch(/default agent pool/);
    expect((await api.get(`/api/v2/agent-pools/${p2}`)).status).toBe(200);
  });
});
