import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../daemon/src/lib/clock';
import { orgNamed, startTestDaemon, type TestDaemon } from '../helpers/daemon';
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
let aliceToken: string;
let bob: HttpClient;
const clock = new ManualClock();

beforeAll(async () => {
  d = await startTestDaemon({ clock });
  const a = await d.user('alice');
  aliceToken = a.token;
  alice = a.http.withContentType(JSONAPI);
  bob = (await d.user('bob')).http.withContentType(JSONAPI);
  await createOrg(alice, 'acme');
  await createOrg(bob, 'other');
});
afterAll(() => d.stop());

const poolCount = async () =>
  Number(
    (
      await d.deps.db
        .selectFrom('agent_pools')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );
const names = (r: { json: { data: Array<{ attributes: { name: string } }> } }) =>
  r.json.data.map((p) => p.attributes.name);

describe('the per-organization pool limit', () => {
  it('allows a lab 100 pools until an owner sets a limit, then refuses past it with 422 saying how to raise it', async () => {
    expect((await alice.get('/api/v2/organizations/acme')).json.data.attributes['agent-pool-limit']).toBe(100);
    await setPoolLimit(alice, 'acme', 1);
    const first = await alice.post('/api/v2/organizations/acme/agent-pools', doc('agent-pools', { name: 'first' }));
    expect(first.status).toBe(201);
    const second = await alice.post('/api/v2/organizations/acme/agent-pools', doc('agent-pools', { name: 'second' }));
    expect(second.status).toBe(422);
    expect(second.headers.get('content-type')).toContain(JSONAPI);
    expect(second.json.errors[0].code).toBe('limit_reached');
    expect(second.json.errors[0].detail).toMatch(/agent-pool-limit 1/);
    expect(second.json.errors[0].detail).toContain('PATCH /api/v2/organizations/acme');
    expect(await poolCount()).toBe(1);
  });

  it('holds under concurrent creates: exactly the limit is created', async () => {
    await createOrg(bob, 'racy');
    await setPoolLimit(bob, 'racy', 1);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        bob.post('/api/v2/organizations/racy/agent-pools', doc('agent-pools', { name: `p${i}` })),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 422, 422, 422, 422, 422, 422, 422]);
    expect((await bob.get('/api/v2/organizations/racy/agent-pools')).json.meta['status-counts'].total).toBe(1);
    expect((await bob.delete('/api/v2/organizations/racy')).status).toBe(204);
  });

  it('takes a higher limit from PATCH /api/boxyard/organizations (the Boxyard API) too', async () => {
    const r = await d.http
      .withToken(aliceToken)
      .patch('/api/boxyard/organizations/acme', { organization: { agent_pool_limit: 2 } });
    expect(r.status).toBe(200);
    expect((await d.deps.orgs.named('acme'))?.agent_pool_limit).toBe(2);
    expect(
      (await alice.post('/api/v2/organizations/acme/agent-pools', doc('agent-pools', { name: 'second' }))).status,
    ).toBe(201);
    await setPoolLimit(alice, 'acme', 20);
    for (const name of ['second', 'first'])
      await alice.delete(
        `/api/v2/agent-pools/${(await alice.get(`/api/v2/organizations/acme/agent-pools?q=${name}`)).json.data[0].id}`,
      );
    expect(await poolCount()).toBe(0);
  });
});

describe('create and show', () => {
  it('creates with organization-scoped true by default and serializes identically in create, show and list', async () => {
    const r = await alice.post(
      '/api/v2/organizations/acme/agent-pools',
      doc('agent-pools', { name: 'cool-pool', 'unknown-attr': 'ignored' }),
    );
    expect(r.status).toBe(201);
    const pool = r.json.data;
    expect(pool.id).toMatch(/^apool-/);
    expect(pool).toEqual({
      type: 'agent-pools',
      id: pool.id,
      attributes: {
        name: 'cool-pool',
        'created-at': clock.now().toISOString(),
        'organization-scoped': true,
        'agent-count': 0,
      },
      relationships: {
        organization: { data: { type: 'organizations', id: 'acme' } },
        agents: { links: { related: `/api/v2/agent-pools/${pool.id}/agents` } },
        'authentication-tokens': { links: { related: `/api/v2/agent-pools/${pool.id}/authentication-tokens` } },
        workspaces: { data: [] },
        'allowed-workspaces': { data: [] },
        'allowed-projects': { data: [] },
        'excluded-workspaces': { data: [] },
      },
      links: { self: `/api/v2/agent-pools/${pool.id}` },
    });
    expect(r.json.included).toBeUndefined();
    const shown = await alice.get(`/api/v2/agent-pools/${pool.id}`);
    expect(shown.json).toEqual({ data: pool });
    const listed = await alice.get('/api/v2/organizations/acme/agent-pools');
    expect(listed.json.data).toEqual([pool]);
    expect(listed.json.included).toBeUndefined();
  });

  it('refuses bad names, duplicates (any case) and wrong types with 422, creating nothing', async () => {
    const before = await poolCount();
    for (const body of [
      doc('agent-pools', { name: 'has space' }),
      doc('agent-pools', { name: '' }),
      doc('agent-pools', {}),
      doc('agent-pools', { name: 'x'.repeat(91) }),
      doc('workspaces', { name: 'ok' }),
      doc('agent-pools', { name: 'ok', 'organization-scoped': 'yes' }),
      { data: [] },
      {},
    ]) {
      const r = await alice.post('/api/v2/organizations/acme/agent-pools', body);
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(r.json.errors[0].status).toBe('422');
    }
    const dup = await alice.post('/api/v2/organizations/acme/agent-pools', doc('agent-pools', { name: 'COOL-pool' }));
    expect(dup.status).toBe(422);
    expect(dup.json.errors[0].detail).toContain('already exists');
    expect(await poolCount()).toBe(before);
  });

  it('answers 404 for unknown ids, strangers and unknown organizations', async () => {
    const pool = (await alice.get('/api/v2/organizations/acme/agent-pools')).json.data[0];
    expect((await alice.get('/api/v2/agent-pools/nonexisting')).status).toBe(404);
    expect((await bob.get(`/api/v2/agent-pools/${pool.id}`)).status).toBe(404);
    expect((await bob.get('/api/v2/organizations/acme/agent-pools')).status).toBe(404);
    expect(
      (await bob.post('/api/v2/organizations/acme/agent-pools', doc('agent-pools', { name: 'sneaky' }))).status,
    ).toBe(404);
    expect((await bob.patch(`/api/v2/agent-pools/${pool.id}`, doc('agent-pools', { name: 'sneaky' }))).status).toBe(
      404,
    );
    expect((await bob.delete(`/api/v2/agent-pools/${pool.id}`)).status).toBe(404);
    expect((await alice.get(`/api/v2/agent-pools/${pool.id}`)).json.data.attributes.name).toBe('cool-pool');
  });
});

describe('list: search, sort, filters, include, paging', () => {
  let ws1: { id: string }, ws2: { id: string }, prj: { id: string };
  beforeAll(async () => {
    for (const n of ['bravo', 'alpha', 'charlie']) {
      clock.advance(1000);
      await createPool(alice, 'acme', n, { 'organization-scoped': false });
    }
    prj = await createProject(alice, 'acme', 'infra');
    ws1 = await createWorkspace(alice, 'acme', 'web');
    ws2 = await createWorkspace(alice, 'acme', 'db', {}, { project: { data: { type: 'projects', id: prj.id } } });
    const all = (await alice.get('/api/v2/organizations/acme/agent-pools?page[size]=100')).json.data as Array<{
      id: string;
      attributes: { name: string };
    }>;
    const id = (n: string) => {
      const pool = all.find((p) => p.attributes.name === n);
      assert(pool, `no pool named ${n} in the list`);
      return pool.id;
    };
    await alice.patch(
      `/api/v2/agent-pools/${id('alpha')}`,
      doc('agent-pools', {}, { 'allowed-workspaces': refs('workspaces', [ws1.id]) }),
    );
    await alice.patch(
      `/api/v2/agent-pools/${id('bravo')}`,
      doc('agent-pools', {}, { 'allowed-projects': refs('projects', [prj.id]) }),
    );
    await alice.patch(
      `/api/v2/agent-pools/${id('cool-pool')}`,
      doc('agent-pools', {}, { 'excluded-workspaces': refs('workspaces', [ws1.id]) }),
    );
  });

  it('sorts by created-at (default), name and their reverses; an invalid sort answers 400', async () => {
    expect(names(await alice.get('/api/v2/organizations/acme/agent-pools'))).toEqual([
      'cool-pool',
      'bravo',
      'alpha',
      'charlie',
    ]);
    expect(names(await alice.get('/api/v2/organizations/acme/agent-pools?sort=created-at'))).toEqual([
      'cool-pool',
      'bravo',
      'alpha',
      'charlie',
    ]);
    expect(names(await alice.get('/api/v2/organizations/acme/agent-pools?sort=-created-at'))).toEqual([
      'charlie',
      'alpha',
      'bravo',
      'cool-pool',
    ]);
    expect(names(await alice.get('/api/v2/organizations/acme/agent-pools?sort=name'))).toEqual([
      'alpha',
      'bravo',
      'charlie',
      'cool-pool',
    ]);
    expect(names(await alice.get('/api/v2/organizations/acme/agent-pools?sort=-name'))).toEqual([
      'cool-pool',
      'charlie',
      'bravo',
      'alpha',
    ]);
    for (const bad of ['size', '--name', 'name,created-at']) {
      const r = await alice.get(`/api/v2/organizations/acme/agent-pools?sort=${bad}`);
      expect(r.status).toBe(400);
      expect(r.json.errors[0]).toMatchObject({ status: '400', source: { parameter: 'sort' } });
    }
  });

  it('searches names with q and counts total and matching in meta.status-counts', async () => {
    const r = await alice.get('/api/v2/organizations/acme/agent-pools?q=AR');
    expect(names(r)).toEqual(['charlie']);
    expect(r.json.meta['status-counts']).toEqual({ total: 4, matching: 1 });
    expect(r.json.meta.pagination['total-count']).toBe(1);
    expect(names(await alice.get('/api/v2/organizations/acme/agent-pools?q=%25'))).toEqual([]);
  });

  it('filters the pools a workspace may use (both spellings, percent-encoded brackets)', async () => {
    // web: cool-pool excludes it; alpha lists it; bravo allows project infra only; charlie allows nobody.
    expect(
      names(await alice.get('/api/v2/organizations/acme/agent-pools?filter%5Ballowed_workspaces%5D%5Bname%5D=web')),
    ).toEqual(['alpha']);
    expect(
      names(await alice.get('/api/v2/organizations/acme/agent-pools?filter[allowed-workspaces][name]=web')),
    ).toEqual(['alpha']);
    const db = await alice.get('/api/v2/organizations/acme/agent-pools?filter[allowed_workspaces][name]=db');
    expect(names(db)).toEqual(['cool-pool', 'bravo']);
    expect(db.json.meta['status-counts']).toEqual({ total: 4, matching: 2 });
    expect(
      names(await alice.get('/api/v2/organizations/acme/agent-pools?filter[allowed_workspaces][name]=nope')),
    ).toEqual([]);
  });

  it('filters the pools a project may use', async () => {
    expect(
      names(await alice.get('/api/v2/organizations/acme/agent-pools?filter%5Ballowed_projects%5D%5Bname%5D=infra')),
    ).toEqual(['cool-pool', 'bravo']);
    expect(
      names(await alice.get('/api/v2/organizations/acme/agent-pools?filter[allowed_projects][name]=Default%20Project')),
    ).toEqual(['cool-pool']);
  });

  it('includes the assigned workspaces only when asked; an unknown include answers 400', async () => {
    const alpha = (await alice.get('/api/v2/organizations/acme/agent-pools?q=alpha')).json.data[0];
    await alice.patch(
      `/api/v2/workspaces/${ws1.id}`,
      doc('workspaces', { 'execution-mode': 'agent', 'agent-pool-id': alpha.id }),
    );
    const r = await alice.get('/api/v2/organizations/acme/agent-pools?include=workspaces&q=alpha');
    expect(r.json.data[0].relationships.workspaces.data).toEqual([{ type: 'workspaces', id: ws1.id }]);
    expect(r.json.included.map((x: { type: string; id: string }) => [x.type, x.id])).toEqual([['workspaces', ws1.id]]);
    const shown = await alice.get(`/api/v2/agent-pools/${alpha.id}?include=workspaces`);
    expect(shown.json.included[0]).toMatchObject({
      type: 'workspaces',
      id: ws1.id,
      attributes: { name: 'web', 'agent-pool-id': alpha.id },
    });
    expect((await alice.get(`/api/v2/agent-pools/${alpha.id}`)).json.included).toBeUndefined();
    for (const path of [
      '/api/v2/organizations/acme/agent-pools?include=agents',
      `/api/v2/agent-pools/${alpha.id}?include=workspaces,nope`,
    ]) {
      const bad = await alice.get(path);
      expect(bad.status).toBe(400);
      expect(bad.json.errors[0].source).toEqual({ parameter: 'include' });
    }
  });

  it("includes only the workspaces of the page's pools, each pool's in its own order", async () => {
    const all = (await alice.get('/api/v2/organizations/acme/agent-pools?sort=name')).json.data as Array<{
      id: string;
      attributes: { name: string };
    }>;
    const charlie = all.find((p) => p.attributes.name === 'charlie');
    assert(charlie, 'no pool named charlie in the list');
    await alice.patch(`/api/v2/agent-pools/${charlie.id}`, doc('agent-pools', { 'organization-scoped': true }));
    await alice.patch(
      `/api/v2/workspaces/${ws2.id}`,
      doc('workspaces', { 'execution-mode': 'agent', 'agent-pool-id': charlie.id }),
    );
    const included = async (query: string) =>
      (
        await alice.get(`/api/v2/organizations/acme/agent-pools?include=workspaces&sort=name&${query}`)
      ).json.included.map((x: { id: string }) => x.id);
    expect(await included('page%5Bsize%5D=1')).toEqual([ws1.id]);
    expect(await included('page%5Bnumber%5D=2&page%5Bsize%5D=2')).toEqual([ws2.id]);
    expect(await included('page%5Bsize%5D=100')).toEqual([ws1.id, ws2.id]);
    expect(await included('page%5Bnumber%5D=9')).toEqual([]);
    await alice.patch(`/api/v2/workspaces/${ws2.id}`, doc('workspaces', { 'execution-mode': 'remote' }));
    await alice.patch(`/api/v2/agent-pools/${charlie.id}`, doc('agent-pools', { 'organization-scoped': false }));
  });

  it('pages with absolute percent-encoded links and meta.pagination', async () => {
    const r = await alice.get('/api/v2/organizations/acme/agent-pools?page%5Bnumber%5D=2&page%5Bsize%5D=1&sort=name');
    expect(names(r)).toEqual(['bravo']);
    expect(r.json.meta.pagination).toEqual({
      'current-page': 2,
      'page-size': 1,
      'prev-page': 1,
      'next-page': 3,
      'total-pages': 4,
      'total-count': 4,
    });
    const base = `${d.url}/api/v2/organizations/acme/agent-pools?sort=name&`;
    expect(r.json.links).toEqual({
      self: `${base}page%5Bnumber%5D=2&page%5Bsize%5D=1`,
      first: `${base}page%5Bnumber%5D=1&page%5Bsize%5D=1`,
      prev: `${base}page%5Bnumber%5D=1&page%5Bsize%5D=1`,
      next: `${base}page%5Bnumber%5D=3&page%5Bsize%5D=1`,
      last: `${base}page%5Bnumber%5D=4&page%5Bsize%5D=1`,
    });
    const last = await alice.get('/api/v2/organizations/acme/agent-pools?page[number]=4&page[size]=1');
    expect(last.json.meta.pagination['next-page']).toBeNull();
    expect(last.json.links.next).toBeNull();
  });

  it('answers a page past the end with empty data, the requested page and the true count', async () => {
    const r = await alice.get('/api/v2/organizations/acme/agent-pools?page[number]=999&page[size]=100');
    expect(r.status).toBe(200);
    expect(r.json.data).toEqual([]);
    expect(r.json.meta.pagination).toMatchObject({
      'current-page': 999,
      'total-count': 4,
      'total-pages': 1,
      'next-page': null,
    });
  });

  it('clamps page[size] to 100 and refuses non-numbers and zero with 400', async () => {
    expect(
      (await alice.get('/api/v2/organizations/acme/agent-pools?page[size]=5000')).json.meta.pagination['page-size'],
    ).toBe(100);
    for (const q of [
      'page[size]=0',
      'page[number]=0',
      'page[number]=abc',
      'page[size]=-1',
      'page[number]=99999999999999999999',
      'page[number]=1&page[number]=2',
    ]) {
      const r = await alice.get(`/api/v2/organizations/acme/agent-pools?${q}`);
      expect(r.status, q).toBe(400);
    }
  });
});

describe('update and delete', () => {
  it('keeps absent attributes and relationships, replaces present ones and clears with []', async () => {
    const ws = await createWorkspace(alice, 'acme', 'upd-ws');
    const pool = (await alice.get('/api/v2/organizations/acme/agent-pools?q=charlie')).json.data[0];
    const set = await alice.patch(
      `/api/v2/agent-pools/${pool.id}`,
      doc('agent-pools', {}, { 'allowed-workspaces': refs('workspaces', [ws.id]) }),
    );
    expect(set.status).toBe(200);
    expect(set.json.data.relationships['allowed-workspaces'].data).toEqual([{ type: 'workspaces', id: ws.id }]);
    const renamed = await alice.patch(`/api/v2/agent-pools/${pool.id}`, doc('agent-pools', { name: 'delta' }));
    expect(renamed.json.data.attributes).toMatchObject({ name: 'delta', 'organization-scoped': false });
    expect(renamed.json.data.relationships['allowed-workspaces'].data).toEqual([{ type: 'workspaces', id: ws.id }]);
    const cleared = await alice.patch(
      `/api/v2/agent-pools/${pool.id}`,
      doc('agent-pools', { 'organization-scoped': true }, { 'allowed-workspaces': { data: [] } }),
    );
    expect(cleared.json.data.attributes['organization-scoped']).toBe(true);
    expect(cleared.json.data.relationships['allowed-workspaces'].data).toEqual([]);
    expect(
      await d.deps.db.selectFrom('agent_pool_allowed_workspaces').selectAll().where('pool_id', '=', pool.id).execute(),
    ).toEqual([]);
  });

  it("refuses unknown workspaces or projects, duplicate names and other organizations' workspaces with 422, changing nothing", async () => {
    const pool = (await alice.get('/api/v2/organizations/acme/agent-pools?q=delta')).json.data[0];
    const foreign = await createWorkspace(bob, 'other', 'theirs');
    for (const body of [
      doc('agent-pools', {}, { 'allowed-workspaces': refs('workspaces', ['ws-nope']) }),
      doc('agent-pools', {}, { 'allowed-workspaces': refs('workspaces', [foreign.id]) }),
      doc('agent-pools', {}, { 'allowed-projects': refs('projects', ['prj-nope']) }),
      doc('agent-pools', {}, { 'allowed-workspaces': refs('projects', ['prj-nope']) }),
      doc('agent-pools', { name: 'alpha' }),
      doc('agent-pools', { name: 'bad name' }),
    ]) {
      const r = await alice.patch(`/api/v2/agent-pools/${pool.id}`, body);
      expect(r.status, JSON.stringify(body)).toBe(422);
    }
    expect((await alice.get(`/api/v2/agent-pools/${pool.id}`)).json.data).toEqual(pool);
  });

  it('refuses a change that takes the pool away from a workspace running on it', async () => {
    const alpha = (await alice.get('/api/v2/organizations/acme/agent-pools?q=alpha')).json.data[0];
    const r = await alice.patch(
      `/api/v2/agent-pools/${alpha.id}`,
      doc('agent-pools', {}, { 'allowed-workspaces': { data: [] } }),
    );
    expect(r.status).toBe(422);
    expect(r.json.errors[0].detail).toContain('web');
    expect(
      (await alice.get(`/api/v2/agent-pools/${alpha.id}`)).json.data.relationships['allowed-workspaces'].data,
    ).toHaveLength(1);
  });

  it('refuses to delete a pool workspaces use (422 with the reason), then deletes it with 204', async () => {
    const alpha = (await alice.get('/api/v2/organizations/acme/agent-pools?q=alpha')).json.data[0];
    const ws = alpha.relationships.workspaces.data[0];
    const refused = await alice.delete(`/api/v2/agent-pools/${alpha.id}`, { headers: { 'content-type': JSONAPI } });
    expect(refused.status).toBe(422);
    expect(refused.json.errors[0].detail).toMatch(/used by 1 workspace\(s\) \(web\)/);
    await alice.patch(`/api/v2/workspaces/${ws.id}`, doc('workspaces', { 'execution-mode': 'remote' }));
    const ok = await alice.delete(`/api/v2/agent-pools/${alpha.id}`, { headers: { 'content-type': JSONAPI } });
    expect(ok.status).toBe(204);
    expect(ok.text).toBe('');
    expect((await alice.get(`/api/v2/agent-pools/${alpha.id}`)).status).toBe(404);
    expect((await alice.delete(`/api/v2/agent-pools/${alpha.id}`)).status).toBe(404);
    expect(
      await d.deps.db.selectFrom('agent_pool_allowed_workspaces').selectAll().where('pool_id', '=', alpha.id).execute(),
    ).toEqual([]);
  });
});

describe('hostile input and members', () => {
  it('answers 4xx in the JSON:API dialect for hostile bodies and changes nothing', async () => {
    const before = await poolCount();
    const bodies: unknown[] = [
      { data: { type: 'agent-pools', attributes: { name: 'ünïcödé' } } },
      { data: { type: 'agent-pools', attributes: { name: '../etc' } } },
      { data: { type: 'agent-pools', attributes: { name: ['a'] } } },
      { data: { type: 'agent-pools', attributes: { name: 'x', 'organization-scoped': 1e308 } } },
      {
        data: {
          type: 'agent-pools',
          attributes: { name: 'x' },
          relationships: { 'allowed-workspaces': { data: 'ws-1' } },
        },
      },
      JSON.parse('{"data":{"type":"agent-pools","attributes":{"__proto__":{"name":"polluted"}}}}'),
    ];
    for (const body of bodies) {
      const r = await alice.post('/api/v2/organizations/acme/agent-pools', body);
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(r.headers.get('content-type')).toContain(JSONAPI);
    }
    const notJson = await alice.request('POST', '/api/v2/organizations/acme/agent-pools', {
      body: '{"data":',
      raw: true,
    });
    expect(notJson.status).toBe(400);
    expect(notJson.json.errors[0].status).toBe('400');
    const hugeLimit = await alice.patch(
      '/api/v2/organizations/acme',
      doc('organizations', { 'agent-pool-limit': 1e12 }),
    );
    expect(hugeLimit.status).toBe(422);
    expect(await poolCount()).toBe(before);
    expect(({} as Record<string, unknown>).name).toBeUndefined();
  });

  it('lets a member who is not an owner manage pools, but not the organization', async () => {
    const org = await orgNamed(d, 'acme');
    await d.deps.orgs.setMember(org, 'bob', 'member');
    const r = await bob.post('/api/v2/organizations/acme/agent-pools', doc('agent-pools', { name: 'bobs' }));
    expect(r.status).toBe(201);
    expect((await bob.delete(`/api/v2/agent-pools/${r.json.data.id}`)).status).toBe(204);
    expect(
      (await bob.patch('/api/v2/organizations/acme', doc('organizations', { 'agent-pool-limit': 50 }))).status,
    ).toBe(403);
    await d.deps.orgs.removeMember(org, 'bob');
  });
});

describe('the list of an organization with one pool (answers kept as bytes)', () => {
  it('answers each change of the pool, its relationships or the count, and links from the URL asked', async () => {
    await createOrg(alice, 'solo');
    const pool = await createPool(alice, 'solo', 'only');
    const list = (q = '') => alice.get(`/api/v2/organizations/solo/agent-pools${q}`);
    const first = await list();
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toContain(JSONAPI);
    expect(names(first)).toEqual(['only']);
    expect(await list()).toMatchObject({ status: 200, text: first.text });

    expect((await alice.patch(`/api/v2/agent-pools/${pool.id}`, doc('agent-pools', { name: 'renamed' }))).status).toBe(
      200,
    );
    expect(names(await list())).toEqual(['renamed']);
    const ws = await createWorkspace(
      alice,
      'solo',
      'web',
      {},
      { 'agent-pool': { data: { type: 'agent-pools', id: pool.id } } },
    );
    expect((await list()).json.data[0].relationships.workspaces.data).toEqual([{ type: 'workspaces', id: ws.id }]);
    expect(
      (
        await alice.patch(
          `/api/v2/agent-pools/${pool.id}`,
          doc('agent-pools', {}, { 'allowed-workspaces': refs('workspaces', [ws.id]) }),
        )
      ).status,
    ).toBe(200);
    expect((await list()).json.data[0].relationships['allowed-workspaces'].data).toEqual([
      { type: 'workspaces', id: ws.id },
    ]);

    const paged = await list('?page%5Bsize%5D=5');
    expect(paged.json.links.self).toBe(
      `${d.url}/api/v2/organizations/solo/agent-pools?page%5Bnumber%5D=1&page%5Bsize%5D=5`,
    );
    expect((await list()).json.links.self).toBe(
      `${d.url}/api/v2/organizations/solo/agent-pools?page%5Bnumber%5D=1&page%5Bsize%5D=20`,
    );
    // The same pool and page, asked another way: the links follow the URL.
    expect((await list('?sort=created-at')).json.links.self).toBe(
      `${d.url}/api/v2/organizations/solo/agent-pools?sort=created-at&page%5Bnumber%5D=1&page%5Bsize%5D=20`,
    );
    // Asked with the token in the URL: the same pool, built for this request.
    const tokenInUrl = await d.http.get(
      `/api/v2/organizations/solo/agent-pools?access_token=${encodeURIComponent(aliceToken)}`,
    );
    expect(names(tokenInUrl)).toEqual(['renamed']);
    expect(tokenInUrl.json.links.self).toBe(
      `${d.url}/api/v2/organizations/solo/agent-pools?page%5Bnumber%5D=1&page%5Bsize%5D=20`,
    );
    expect((await list('?page%5Bnumber%5D=1')).json.links.self).toBe(
      `${d.url}/api/v2/organizations/solo/agent-pools?page%5Bnumber%5D=1&page%5Bsize%5D=20`,
    );
    await setPoolLimit(alice, 'solo', 2);
    await createPool(alice, 'solo', 'second');
    const two = await list('?page%5Bsize%5D=1');
    expect(names(two)).toEqual(['renamed']);
    expect(two.json.meta['status-counts']).toEqual({ total: 2, matching: 2 });
    expect(two.json.meta.pagination['total-count']).toBe(2);
  });
});
