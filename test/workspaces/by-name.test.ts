import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient } from '../helpers/http';
import { JSONAPI, createOrg, createProject, createWorkspace, doc } from '../helpers/agents';

/*
 * go-tfe's Workspaces.Update, Delete and SafeDelete name a workspace by its organization and name, Projects.Update a
 * project by id: the same rules, rights and errors as the by-id routes. Every member of an organization may change
 * and delete its workspaces and projects (workspaces/resources.ts); anyone else is told they do not exist.
 */

let d: TestDaemon;
let alice: HttpClient;
let mike: HttpClient;
let bob: HttpClient;

beforeAll(async () => {
  d = await startTestDaemon();
  alice = (await d.user('alice')).http.withContentType(JSONAPI);
  mike = (await d.user('mike')).http.withContentType(JSONAPI);
  bob = (await d.user('bob')).http.withContentType(JSONAPI);
  await createOrg(alice, 'acme');
  await createOrg(bob, 'other');
  const joined = await alice.put('/api/boxyard/organizations/acme/members/mike', { member: { role: 'member' } });
  expect(joined.status).toBeLessThan(300);
});
afterAll(() => d.stop());

const row = (table: 'workspaces' | 'projects', id: string) =>
  d.deps.db.selectFrom(table).selectAll().where('id', '=', id).executeTakeFirst();
const byName = (name: string, org = 'acme') => `/api/v2/organizations/${org}/workspaces/${name}`;

describe('PATCH, DELETE and safe-delete /organizations/:org/workspaces/:name', () => {
  it('changes a workspace found by name, case-insensitively, with the body PATCH /workspaces/:id takes', async () => {
    const ws = await createWorkspace(alice, 'acme', 'web');
    const r = await alice.patch(
      byName('WEB'),
      doc('workspaces', { name: 'web-2', 'terraform-version': '~> 1.9', 'auto-apply': true }),
    );
    expect(r.status, r.text).toBe(200);
    expect(r.json.data).toMatchObject({
      id: ws.id,
      attributes: { name: 'web-2', 'terraform-version': '~> 1.9', 'auto-apply': true },
      relationships: { organization: { data: { id: 'acme', type: 'organizations' } } },
    });
    expect((await alice.get(`/api/v2/workspaces/${ws.id}`)).json.data.attributes.name).toBe('web-2');
    expect((await alice.get(byName('web'))).status).toBe(404);
    // A plain member of the organization may too, as by id.
    const byMember = await mike.patch(byName('web-2'), doc('workspaces', { description: 'by mike' }));
    expect(byMember.status, byMember.text).toBe(200);
    expect((await row('workspaces', ws.id))?.description).toBe('by mike');
  });

  it('deletes by name (DELETE and safe-delete answer 204), then answers 404', async () => {
    const a = await createWorkspace(alice, 'acme', 'gone-a');
    const b = await createWorkspace(alice, 'acme', 'gone-b');
    expect((await alice.delete(byName('gone-a'), { headers: { 'content-type': JSONAPI } })).status).toBe(204);
    expect((await mike.post(`${byName('gone-b')}/actions/safe-delete`, undefined)).status).toBe(204);
    expect(await row('workspaces', a.id)).toBeUndefined();
    expect(await row('workspaces', b.id)).toBeUndefined();
    for (const r of [
      await alice.delete(byName('gone-a')),
      await alice.post(`${byName('gone-b')}/actions/safe-delete`, undefined),
      await alice.patch(byName('gone-a'), doc('workspaces', { description: 'x' })),
    ]) {
      expect(r.status).toBe(404);
      expect(r.json.errors[0]).toMatchObject({ status: '404', code: 'not_found' });
    }
  });

  it("answers 404 to another organization's member, through either organization's path, and changes nothing", async () => {
    const ws = await createWorkspace(alice, 'acme', 'guarded', { description: 'keep' });
    const before = await row('workspaces', ws.id);
    for (const path of [byName('guarded'), byName('guarded', 'other'), byName('guarded', 'nope')]) {
      const tries = [
        await bob.patch(path, doc('workspaces', { name: 'taken-over', description: 'owned' })),
        await bob.delete(path),
        await bob.post(`${path}/actions/safe-delete`, undefined),
      ];
      for (const r of tries) {
        expect(r.status, `${path} ${r.text}`).toBe(404);
        expect(r.json.errors[0].code).toBe('not_found');
      }
    }
    // Without a token at all: 401.
    expect((await d.http.withContentType(JSONAPI).delete(byName('guarded'))).status).toBe(401);
    expect(await row('workspaces', ws.id)).toEqual(before);
  });

  it('refuses bad input with 422 (the by-id rules) and changes nothing', async () => {
    const ws = await createWorkspace(alice, 'acme', 'strict-byname', { 'terraform-version': '1.5.7' });
    await createWorkspace(alice, 'acme', 'taken');
    const before = await row('workspaces', ws.id);
    const bad: Array<[unknown, string | undefined]> = [
      [doc('workspaces', { 'terraform-version': 'nonexisting' }), '/data/attributes/terraform-version'],
      [doc('workspaces', { name: 'a b' }), '/data/attributes/name'],
      [doc('workspaces', { name: 'TAKEN' }), '/data/attributes/name'],
      [doc('workspaces', { 'execution-mode': 'agent' }), '/data/attributes/agent-pool-id'],
      [doc('agent-pools', { name: 'x' }), '/data/type'],
      [{ data: 'nope' }, undefined],
    ];
    for (const [body, pointer] of bad) {
      const r = await alice.patch(byName('strict-byname'), body);
      expect(r.status, `${JSON.stringify(body)} → ${r.text}`).toBe(422);
      if (pointer) expect(r.json.errors[0].source).toEqual({ pointer });
    }
    const long = await alice.patch(byName('x'.repeat(257)), doc('workspaces', { description: 'x' }));
    expect(long.status).toBe(422);
    expect(await row('workspaces', ws.id)).toEqual(before);
  });
});

describe('terraform-version', () => {
  it('takes releases, constraints and "latest", and refuses anything else with 422', async () => {
    const ws = await createWorkspace(alice, 'acme', 'versions');
    for (const v of ['1.5.7', '1.10.0-beta1', '~> 1.9', '>= 1.5.0, < 2.0.0', '!= 1.6.0', 'latest']) {
      const r = await alice.patch(`/api/v2/workspaces/${ws.id}`, doc('workspaces', { 'terraform-version': v }));
      expect(r.status, `${v} → ${r.text}`).toBe(200);
      expect(r.json.data.attributes['terraform-version']).toBe(v);
    }
    for (const v of ['nonexisting', '1.9', '', 'v1.5.7', '1.x', '>= 1 || < 2', '1.2.3,', `1.2.3${'0'.repeat(70)}`]) {
      const r = await alice.patch(`/api/v2/workspaces/${ws.id}`, doc('workspaces', { 'terraform-version': v }));
      expect(r.status, `${v} → ${r.text}`).toBe(422);
      expect(r.json.errors[0]).toMatchObject({
        code: 'validation',
        detail: expect.stringMatching(/terraform-version/),
      });
    }
    expect((await row('workspaces', ws.id))?.terraform_version).toBe('latest');
    const created = await alice.post(
      '/api/v2/organizations/acme/workspaces',
      doc('workspaces', { name: 'never-made', 'terraform-version': 'nonexisting' }),
    );
    expect(created.status).toBe(422);
    expect((await alice.get(byName('never-made'))).status).toBe(404);
  });
});

describe('include=organization on workspace lists', () => {
  it('adds the organization to included, as GET /organizations/:org shows it, and only when asked', async () => {
    await createWorkspace(alice, 'acme', 'listed');
    const org = (await alice.get('/api/v2/organizations/acme')).json.data;
    const r = await mike.get('/api/v2/organizations/acme/workspaces?include=organization');
    expect(r.status).toBe(200);
    expect(r.json.included).toHaveLength(1);
    // The caller's own permissions: mike is a member, not an owner.
    expect(r.json.included[0]).toMatchObject({
      ...org,
      attributes: { ...org.attributes, permissions: expect.any(Object) },
    });
    expect(r.json.included[0].attributes.permissions['can-update']).toBe(false);
    expect(r.json.data[0].relationships.organization.data).toEqual({ type: 'organizations', id: 'acme' });
    expect((await alice.get('/api/v2/organizations/acme/workspaces')).json).not.toHaveProperty('included');
  });

  it('refuses an include it does not offer with 400 naming the parameter', async () => {
    const r = await alice.get('/api/v2/organizations/acme/workspaces?include=organization,current_run');
    expect(r.status).toBe(400);
    expect(r.json.errors[0]).toMatchObject({ code: 'bad_parameter', source: { parameter: 'include' } });
    expect((await bob.get('/api/v2/organizations/acme/workspaces?include=organization')).status).toBe(404);
  });
});

describe('PATCH /projects/:id', () => {
  it('renames a project (the default one too) for any member, and keeps which one is the default', async () => {
    const p = await createProject(alice, 'acme', 'infra');
    const r = await mike.patch(`/api/v2/projects/${p.id}`, doc('projects', { name: 'Platform', description: 'x' }));
    expect(r.status, r.text).toBe(200);
    expect(r.json.data).toMatchObject({ id: p.id, type: 'projects', attributes: { name: 'Platform' } });
    expect((await alice.get(`/api/v2/projects/${p.id}`)).json.data.attributes.name).toBe('Platform');
    const list = (await alice.get('/api/v2/organizations/acme/projects')).json.data;
    const def = list.find((x: { attributes: { 'is-default': boolean } }) => x.attributes['is-default']);
    const renamed = await alice.patch(`/api/v2/projects/${def.id}`, doc('projects', { name: 'Main' }));
    expect(renamed.json.data.attributes).toMatchObject({ name: 'Main', 'is-default': true });
    // Only the name changed case: no conflict with itself.
    expect((await alice.patch(`/api/v2/projects/${p.id}`, doc('projects', { name: 'PLATFORM' }))).status).toBe(200);
    const ws = await createWorkspace(alice, 'acme', 'in-default');
    expect(ws.relationships.project.data.id).toBe(def.id);
  });

  it('refuses bad names, taken names, strangers and unknown ids, and changes nothing', async () => {
    const p = await createProject(alice, 'acme', 'steady');
    await createProject(alice, 'acme', 'occupied');
    const before = await row('projects', p.id);
    for (const [body, code] of [
      [doc('projects', { name: '' }), 'validation'],
      [doc('projects', { name: 'x'.repeat(91) }), 'validation'],
      [doc('projects', { name: 42 }), 'validation'],
      [doc('workspaces', { name: 'fine' }), 'validation'],
      [doc('projects', { name: 'Occupied' }), 'conflict'],
    ] as const) {
      const r = await alice.patch(`/api/v2/projects/${p.id}`, body);
      expect(r.status, `${JSON.stringify(body)} → ${r.text}`).toBe(422);
      expect(r.json.errors[0]).toMatchObject({ code });
    }
    const stranger = await bob.patch(`/api/v2/projects/${p.id}`, doc('projects', { name: 'mine' }));
    expect(stranger.status).toBe(404);
    expect(stranger.json.errors[0].code).toBe('not_found');
    expect((await alice.patch('/api/v2/projects/prj-nope', doc('projects', { name: 'x' }))).status).toBe(404);
    expect(await row('projects', p.id)).toEqual(before);
  });
});
