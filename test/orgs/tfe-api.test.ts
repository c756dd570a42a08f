import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orgNamed, startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient } from '../helpers/http';
import { JSONAPI, createAgentToken, createOrg, createPool, createWorkspace, doc } from '../helpers/agents';

let d: TestDaemon;
let alice: HttpClient;
let bob: HttpClient;

beforeAll(async () => {
  d = await startTestDaemon();
  alice = (await d.user('alice')).http.withContentType(JSONAPI);
  bob = (await d.user('bob')).http.withContentType(JSONAPI);
});
afterAll(() => d.stop());

const count = async (table: 'agent_pools' | 'agent_tokens' | 'agents' | 'workspaces' | 'projects' | 'organizations') =>
  Number(
    (
      await d.deps.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('GET /api/v2/ping', () => {
  it('answers 200 with TFP-API-Version, without a token', async () => {
    const r = await d.http.get('/api/v2/ping');
    expect(r.status).toBe(200);
    expect(r.headers.get('tfp-api-version')).toBe('2.5');
    expect(r.headers.get('content-type')).toContain(JSONAPI);
  });
});

describe('organizations', () => {
  it('creates an organization owned by the caller, ignoring unknown attributes', async () => {
    const r = await alice.post(
      '/api/v2/organizations',
      doc('organizations', {
        name: 'acme',
        email: 'ops@acme.example',
        'no-such-attribute': 1,
        'session-timeout': 20160,
      }),
    );
    expect(r.status).toBe(201);
    expect(r.headers.get('content-type')).toContain(JSONAPI);
    expect(r.json.data).toMatchObject({
      type: 'organizations',
      id: 'acme',
      attributes: {
        name: 'acme',
        email: 'ops@acme.example',
        'agent-pool-limit': 100,
        'session-timeout': 20160,
        'collaborator-auth-policy': 'password',
        'saml-enabled': false,
        permissions: { 'can-update': true, 'can-destroy': true },
      },
      links: { self: '/api/v2/organizations/acme' },
    });
    expect(r.json.data.attributes['created-at']).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(r.json.data.attributes['external-id']).toMatch(/^org-/);
    const org = await orgNamed(d, 'acme');
    const alicesRow = await d.deps.accounts.userNamed('alice');
    expect(await d.deps.orgs.isOwner({ user: alicesRow, tokenId: '' }, org)).toBe(true);
  });

  it('shows it to members only; others get 404 like an unknown name', async () => {
    expect((await alice.get('/api/v2/organizations/acme')).json.data.id).toBe('acme');
    const hidden = await bob.get('/api/v2/organizations/acme');
    expect(hidden.status).toBe(404);
    expect(hidden.json.errors[0]).toMatchObject({ status: '404', title: 'not found' });
    expect((await alice.get('/api/v2/organizations/nonexisting')).status).toBe(404);
  });

  it('answers 401 without a token or with a bad one', async () => {
    expect((await d.http.get('/api/v2/organizations/acme')).status).toBe(401);
    expect((await d.http.withToken('bogus').get('/api/v2/organizations')).status).toBe(401);
  });

  it("lists only the caller's organizations, paginated", async () => {
    await createOrg(bob, 'bobs-org');
    const r = await bob.get('/api/v2/organizations');
    expect(r.status).toBe(200);
    expect(r.json.data.map((o: { id: string }) => o.id)).toEqual(['bobs-org']);
    expect(r.json.meta.pagination).toMatchObject({ 'current-page': 1, 'total-count': 1, 'total-pages': 1 });
  });

  it("pages the list in SQL, by name, with each one's settings and the caller's permissions; administrators see all", async () => {
    for (const name of ['bobs-c', 'bobs-a', 'bobs-b']) await createOrg(bob, name);
    await bob.patch('/api/v2/organizations/bobs-b', doc('organizations', { 'session-timeout': 60 }));
    // alice is a plain member of bobs-a: she sees it, may not change it.
    await d.deps.orgs.setMember(await orgNamed(d, 'bobs-a'), 'alice', 'member');
    const page = await bob.get('/api/v2/organizations?page%5Bnumber%5D=2&page%5Bsize%5D=2');
    expect(page.json.data.map((o: { id: string }) => o.id)).toEqual(['bobs-c', 'bobs-org']);
    expect(page.json.meta.pagination).toMatchObject({
      'current-page': 2,
      'page-size': 2,
      'total-count': 4,
      'total-pages': 2,
      'prev-page': 1,
    });
    const first = await bob.get('/api/v2/organizations?page%5Bsize%5D=2');
    expect(first.json.data[1]).toMatchObject({
      id: 'bobs-b',
      attributes: {
        'session-timeout': 60,
        'collaborator-auth-policy': 'password',
        permissions: { 'can-update': true },
      },
    });
    const shown = (await bob.get('/api/v2/organizations/bobs-b')).json.data;
    expect(first.json.data[1]).toEqual(shown);
    const alices = await alice.get('/api/v2/organizations');
    expect(alices.json.data.map((o: { id: string }) => o.id)).toEqual(['acme', 'bobs-a']);
    expect(alices.json.data[1].attributes.permissions).toMatchObject({ 'can-update': false, 'can-destroy': false });
    const all = await d.http.withToken(d.adminToken).get('/api/v2/organizations?page%5Bsize%5D=100');
    expect(all.json.data.map((o: { id: string }) => o.id)).toEqual(['acme', 'bobs-a', 'bobs-b', 'bobs-c', 'bobs-org']);
    expect(
      all.json.data.every(
        (o: { attributes: { permissions: { 'can-update': boolean } } }) => o.attributes.permissions['can-update'],
      ),
    ).toBe(true);
    expect((await bob.get('/api/v2/organizations?page%5Bnumber%5D=9')).json).toMatchObject({
      data: [],
      meta: { pagination: { 'current-page': 9, 'total-count': 4 } },
    });
    for (const name of ['bobs-a', 'bobs-b', 'bobs-c'])
      expect((await bob.delete(`/api/v2/organizations/${name}`)).status).toBe(204);
  });

  it('refuses a taken name (users and organizations share one name space) and malformed bodies with 422', async () => {
    for (const name of ['acme', 'alice']) {
      const r = await alice.post('/api/v2/organizations', doc('organizations', { name, email: 'x@example.com' }));
      expect(r.status).toBe(422);
      expect(r.json.errors[0].detail).toContain('already taken');
    }
    const bad = await alice.post(
      '/api/v2/organizations',
      doc('organizations', { name: '../x', email: 'x@example.com' }),
    );
    expect(bad.status).toBe(422);
    expect(bad.json.errors[0].source).toEqual({ pointer: '/data/attributes/name' });
    expect((await alice.post('/api/v2/organizations', {})).status).toBe(422);
    expect((await alice.post('/api/v2/organizations', doc('workspaces', { name: 'zz' }))).status).toBe(422);
    expect(await d.deps.orgs.named('zz')).toBeUndefined();
  });

  it('lets an owner PATCH attributes, including agent-pool-limit; absent ones stay', async () => {
    const r = await alice.patch(
      '/api/v2/organizations/acme',
      doc('organizations', { 'agent-pool-limit': 3, 'cost-estimation-enabled': true }),
    );
    expect(r.status).toBe(200);
    expect(r.json.data.attributes).toMatchObject({
      'agent-pool-limit': 3,
      'cost-estimation-enabled': true,
      email: 'ops@acme.example',
      'session-timeout': 20160,
    });
    expect((await d.deps.orgs.named('acme'))?.agent_pool_limit).toBe(3);
    const bad = await alice.patch('/api/v2/organizations/acme', doc('organizations', { 'agent-pool-limit': -1 }));
    expect(bad.status).toBe(422);
    expect((await d.deps.orgs.named('acme'))?.agent_pool_limit).toBe(3);
  });

  it('refuses PATCH and DELETE by a member who is not an owner (403), and by strangers (404)', async () => {
    const org = await orgNamed(d, 'acme');
    await d.deps.orgs.setMember(org, 'bob', 'member');
    expect((await bob.get('/api/v2/organizations/acme')).json.data.attributes.permissions['can-update']).toBe(false);
    expect(
      (await bob.patch('/api/v2/organizations/acme', doc('organizations', { 'agent-pool-limit': 9 }))).status,
    ).toBe(403);
    expect((await bob.delete('/api/v2/organizations/acme')).status).toBe(403);
    await d.deps.orgs.removeMember(org, 'bob');
    expect(
      (await bob.patch('/api/v2/organizations/acme', doc('organizations', { 'agent-pool-limit': 9 }))).status,
    ).toBe(404);
    expect((await d.deps.orgs.named('acme'))?.agent_pool_limit).toBe(3);
  });

  it('DELETE cascades to projects, workspaces, pools, tokens and agents', async () => {
    const pool = await createPool(alice, 'acme', 'pool-a');
    const ws = await createWorkspace(alice, 'acme', 'ws-a', { 'execution-mode': 'agent', 'agent-pool-id': pool.id });
    const { token } = await createAgentToken(alice, pool.id);
    const reg = await d.http.withToken(token).post('/api/agent/register', { name: 'a1' });
    expect(reg.status).toBe(201);
    expect(ws.relationships['agent-pool'].data.id).toBe(pool.id);
    const before = {
      pools: await count('agent_pools'),
      tokens: await count('agent_tokens'),
      agents: await count('agents'),
      ws: await count('workspaces'),
    };
    expect(before).toEqual({ pools: 1, tokens: 1, agents: 1, ws: 1 });

    const r = await alice
      .withContentType(JSONAPI)
      .request('DELETE', '/api/v2/organizations/acme', { body: '', raw: true });
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
    expect({
      pools: await count('agent_pools'),
      tokens: await count('agent_tokens'),
      agents: await count('agents'),
      ws: await count('workspaces'),
    }).toEqual({ pools: 0, tokens: 0, agents: 0, ws: 0 });
    expect(
      await d.deps.db.selectFrom('projects').selectAll().where('name', '=', 'Default Project').execute(),
    ).toHaveLength(1); // bobs-org's
    expect((await alice.get('/api/v2/organizations/acme')).status).toBe(404);
    expect((await alice.get(`/api/v2/agent-pools/${pool.id}`)).status).toBe(404);
  });
});
