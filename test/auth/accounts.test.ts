import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';

let d: TestDaemon;
beforeAll(async () => {
  d = await startTestDaemon();
});
afterAll(async () => {
  await d.stop();
});

describe('users (/api/boxyard/users)', () => {
  it('lets an administrator create users, and nobody else', async () => {
    const admin = d.http.withToken(d.adminToken);
    const r = await admin.post('/api/boxyard/users', {
      user: { username: 'bob', password: 'bob-password', email: 'bob@example.org' },
    });
    expect(r.status).toBe(201);
    expect(r.json.user).toMatchObject({ username: 'bob', email: 'bob@example.org', admin: false });
    const bob = d.http.withToken(
      (await d.http.post('/api/v1/authenticate', { user: { login: 'bob', password: 'bob-password' } })).json.token,
    );
    expect((await bob.post('/api/boxyard/users', { user: { username: 'eve', password: 'eve-password' } })).status).toBe(
      403,
    );
    expect(
      (await d.http.post('/api/boxyard/users', { user: { username: 'eve', password: 'eve-password' } })).status,
    ).toBe(401);
    expect((await admin.get('/api/boxyard/users')).json.users.map((u: { username: string }) => u.username)).toEqual([
      'admin',
      'bob',
    ]);
    expect((await bob.get('/api/boxyard/users/admin')).status).toBe(404);
    expect((await bob.patch('/api/boxyard/users/bob', { user: { admin: true } })).status).toBe(403);
    expect((await admin.get('/api/boxyard/users/bob')).json.user.admin).toBe(false);
  });

  it('refuses reserved, duplicate and malformed names, changing nothing', async () => {
    const admin = d.http.withToken(d.adminToken);
    for (const username of [
      'api',
      'UI',
      'healthz',
      '../etc',
      'a/b',
      '',
      'x'.repeat(65),
      '__proto__',
      'bad name',
      'ünï',
    ]) {
      const r = await admin.post('/api/boxyard/users', { user: { username, password: 'long-enough-pw' } });
      expect(r.status, username).toBe(403);
      expect(r.json.errors[0]).toMatch(/username/);
    }
    const dup = await admin.post('/api/boxyard/users', { user: { username: 'BOB', password: 'long-enough-pw' } });
    expect(dup.status).toBe(422);
    expect(dup.json.errors[0]).toMatch(/already taken/);
    const short = await admin.post('/api/boxyard/users', { user: { username: 'carol', password: 'short' } });
    expect(short.status).toBe(403);
    expect(short.json.errors[0]).toMatch(/password.*12/);
    const eleven = await admin.post('/api/boxyard/users', { user: { username: 'carol', password: 'x'.repeat(11) } });
    expect(eleven.status).toBe(403);
    expect((await admin.get('/api/boxyard/users')).json.users).toHaveLength(2);
  });
});

describe('organizations (/api/boxyard/organizations)', () => {
  it('creates an organization owned by its creator and manages members', async () => {
    const { http: owner } = await d.user('olive');
    const { http: member } = await d.user('mike');
    const r = await owner.post('/api/boxyard/organizations', {
      organization: { name: 'labs', email: 'labs@example.org' },
    });
    expect(r.status).toBe(201);
    expect(r.json.organization).toMatchObject({ name: 'labs', agent_pool_limit: 100 });
    expect((await owner.post('/api/boxyard/organizations', { organization: { name: 'olive' } })).status).toBe(422);
    expect((await member.get('/api/boxyard/organizations/labs')).status).toBe(404);
    expect(
      (await owner.put('/api/boxyard/organizations/labs/members/mike', { member: { role: 'member' } })).status,
    ).toBe(200);
    const shown = await member.get('/api/boxyard/organizations/labs');
    expect(shown.status).toBe(200);
    expect(
      shown.json.organization.members.map((m: { username: string; role: string }) => `${m.username}:${m.role}`),
    ).toEqual(['mike:member', 'olive:owner']);
    // Who may change the members, so the UI offers the controls only to them: owners and administrators.
    expect(shown.json.organization.may_manage).toBe(false);
    expect((await owner.get('/api/boxyard/organizations/labs')).json.organization.may_manage).toBe(true);
    const admin = d.http.withToken(d.adminToken);
    expect((await admin.get('/api/boxyard/organizations/labs')).json.organization.may_manage).toBe(true);
    expect(
      (await member.patch('/api/boxyard/organizations/labs', { organization: { agent_pool_limit: 5 } })).status,
    ).toBe(403);
    expect(
      (await owner.patch('/api/boxyard/organizations/labs', { organization: { agent_pool_limit: 5 } })).json
        .organization.agent_pool_limit,
    ).toBe(5);
    const last = await owner.delete('/api/boxyard/organizations/labs/members/olive');
    expect(last.status).toBe(422);
    expect(last.json.errors[0]).toMatch(/last owner/);
    expect((await owner.delete('/api/boxyard/organizations/labs/members/mike')).status).toBe(204);
    expect((await member.get('/api/boxyard/organizations/labs')).status).toBe(404);
    expect((await member.get('/api/boxyard/organizations')).json.organizations).toEqual([]);
    expect((await owner.delete('/api/boxyard/organizations/labs')).status).toBe(204);
    expect(await d.deps.orgs.named('labs')).toBeUndefined();
  });
});

describe('API tokens (/api/boxyard/tokens)', () => {
  it('creates, lists and revokes only the caller’s own tokens', async () => {
    const { http: a } = await d.user('tokena');
    const { http: b } = await d.user('tokenb');
    const created = await a.post('/api/boxyard/tokens', { token: { description: 'ci' } });
    expect(created.status).toBe(201);
    const secondary = d.http.withToken(created.json.token);
    expect((await secondary.get('/api/v1/authenticate')).json.user.username).toBe('tokena');
    expect((await b.delete(`/api/boxyard/tokens/${created.json.id}`)).status).toBe(404);
    expect((await a.delete(`/api/boxyard/tokens/${created.json.id}`)).status).toBe(204);
    expect((await secondary.get('/api/v1/authenticate')).status).toBe(401);
  });
});

describe('health and unknown routes', () => {
  it('answers /healthz and 404s in each dialect', async () => {
    const h = await d.http.get('/healthz');
    expect(h.status).toBe(200);
    expect(h.json).toMatchObject({ status: 'ok', version: expect.any(String) });
    const v1 = await d.http.get('/api/v1/nothing-here');
    expect(v1.status).toBe(404);
    expect(v1.json).toEqual({ errors: [expect.stringContaining('No route')], success: false, code: 'not_found' });
    const v2 = await d.http.get('/api/v2/nothing-here');
    expect(v2.status).toBe(404);
    expect(v2.headers.get('content-type')).toContain('application/vnd.api+json');
    expect(v2.json.errors[0]).toMatchObject({ status: '404', title: 'not found' });
  });
});

describe('methods a path does not serve', () => {
  it('answers 405 with Allow, in each dialect', async () => {
    const v1 = await d.http.withToken(d.adminToken).patch('/api/v1/authenticate', {});
    expect(v1.status).toBe(405);
    expect(v1.headers.get('allow')).toMatch(/GET/);
    expect(v1.json).toEqual({ errors: [expect.stringContaining('Allow')], success: false, code: 'method_not_allowed' });
    const v2 = await d.http.withToken(d.adminToken).put('/api/v2/ping', {});
    expect(v2.status).toBe(405);
    expect(v2.json.errors[0]).toMatchObject({ status: '405', title: 'method not allowed' });
  });
});

describe('service discovery', () => {
  it('serves /.well-known/terraform.json pointing tfe.v2 at /api/v2/', async () => {
    const r = await d.http.get('/.well-known/terraform.json');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('application/json');
    expect(r.json).toEqual({ 'tfe.v2': '/api/v2/', 'tfe.v2.1': '/api/v2/', 'tfe.v2.2': '/api/v2/' });
  });
});
