import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient } from '../helpers/http';
import { ServicePrincipalCreatedAnswer, ServicePrincipalsAnswer } from '../../daemon/src/contract/wire/accounts';
import { countRows, createBox, publish } from '../helpers/registry';

// Service principals: made by an organization's owners, exchanged at POST /oauth2/token for a bearer token that
// publishes to that organization and reaches nothing else; revoked, their tokens stop at once.
let d: TestDaemon;
let owner: HttpClient;
let member: HttpClient;
let stranger: HttpClient;
let admin: HttpClient;

const principals = (org: string) => `/api/boxyard/organizations/${org}/service-principals`;
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

/** A POST to the token endpoint: `form` as the body, `headers` beside it. */
const tokenRequest = (form: string, headers: Record<string, string> = FORM) =>
  d.http.post('/oauth2/token', form, { raw: true, headers });

async function newPrincipal(org = 'acme', as = owner) {
  const r = await as.post(principals(org), { service_principal: { name: 'packer on ci' } });
  expect(r.status, r.text).toBe(201);
  // The answer the web UI reads, as the contract says it.
  return ServicePrincipalCreatedAnswer.parse(r.json).service_principal;
}

async function tokenOf(p: { client_id: string; client_secret: string }) {
  const r = await tokenRequest('grant_type=client_credentials', {
    ...FORM,
    authorization: basic(p.client_id, p.client_secret),
  });
  expect(r.status, r.text).toBe(200);
  return d.http.withToken(r.json.access_token);
}

beforeAll(async () => {
  d = await startTestDaemon();
  owner = (await d.user('olivia', { orgs: ['acme'] })).http;
  member = (await d.user('mark')).http;
  stranger = (await d.user('sam', { orgs: ['other'] })).http;
  admin = d.http.withToken(d.adminToken);
  expect((await owner.put('/api/boxyard/organizations/acme/members/mark', { member: { role: 'member' } })).status).toBe(
    200,
  );
});
afterAll(() => d.stop());

describe('managing service principals', () => {
  it('an owner and an administrator create them; the secret is shown once and stored hashed', async () => {
    const made = await newPrincipal();
    expect(made).toMatchObject({ name: 'packer on ci', client_id: expect.any(String), last_used_at: null });
    const byAdmin = await newPrincipal('acme', admin);
    const list = await owner.get(principals('acme'));
    expect(list.status).toBe(200);
    expect(() => ServicePrincipalsAnswer.strict().parse(list.json)).not.toThrow();
    const ids = list.json.service_principals.map((p: { client_id: string }) => p.client_id);
    expect(ids).toEqual(expect.arrayContaining([made.client_id, byAdmin.client_id]));
    expect(list.text).not.toContain(made.client_secret);
    const row = await d.deps.db
      .selectFrom('service_principals')
      .selectAll()
      .where('client_id', '=', made.client_id)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(made.client_secret);
  });

  it('a member gets 403, anyone else 404, and nothing is made', async () => {
    const before = (await owner.get(principals('acme'))).json.service_principals.length;
    const body = { service_principal: { name: 'x' } };
    expect((await member.post(principals('acme'), body)).status).toBe(403);
    expect((await member.get(principals('acme'))).status).toBe(403);
    expect((await stranger.post(principals('acme'), body)).status).toBe(404);
    expect((await d.http.post(principals('acme'), body)).status).toBe(401);
    expect((await owner.get(principals('acme'))).json.service_principals).toHaveLength(before);
  });

  it('refuses a bad name in the API dialect, with a stable code', async () => {
    for (const name of ['', ' ', 'a'.repeat(101), 'line\nbreak']) {
      const r = await owner.post(principals('acme'), { service_principal: { name } });
      expect(r.status, name).toBe(403);
      expect(r.json.code).toBe('validation');
    }
  });

  it('revoking another organization’s principal is 404 and changes nothing', async () => {
    const p = await newPrincipal();
    expect((await stranger.delete(`${principals('other')}/${p.client_id}`)).status).toBe(404);
    expect((await (await tokenOf(p)).get('/api/v2/authenticate')).status).toBe(200);
  });
});

describe('POST /oauth2/token', () => {
  it('answers a bearer token for an hour, to HTTP Basic and to the form', async () => {
    const p = await newPrincipal();
    const viaBasic = await tokenRequest('grant_type=client_credentials&audience=https%3A%2F%2Fapi.hashicorp.cloud', {
      ...FORM,
      authorization: basic(p.client_id, p.client_secret),
    });
    expect(viaBasic.status).toBe(200);
    expect(viaBasic.json).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 3600 });
    expect(viaBasic.headers.get('cache-control')).toBe('no-store');
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: p.client_id,
      client_secret: p.client_secret,
    });
    const viaForm = await tokenRequest(form.toString());
    expect(viaForm.status).toBe(200);
    expect(viaForm.json.access_token).not.toBe(viaBasic.json.access_token);
    const stored = await d.deps.db.selectFrom('service_principal_tokens').select('token_hash').execute();
    expect(JSON.stringify(stored)).not.toContain(viaForm.json.access_token);
  });

  it('answers OAuth2 errors (RFC 6749 §5.2) and issues nothing', async () => {
    const p = await newPrincipal();
    const before = (await d.deps.db.selectFrom('service_principal_tokens').select('id').execute()).length;
    const wrongBasic = await tokenRequest('grant_type=client_credentials', {
      ...FORM,
      authorization: basic(p.client_id, 'wrong-secret'),
    });
    expect(wrongBasic.status).toBe(401);
    expect(wrongBasic.json.error).toBe('invalid_client');
    expect(wrongBasic.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
    const wrongForm = await tokenRequest(`grant_type=client_credentials&client_id=${p.client_id}&client_secret=nope`);
    expect(wrongForm.status).toBe(401);
    expect(wrongForm.json.error).toBe('invalid_client');
    expect(wrongForm.headers.get('www-authenticate')).toBeNull();
    const unknown = await tokenRequest('grant_type=client_credentials&client_id=nobody&client_secret=nope');
    expect(unknown.json.error).toBe('invalid_client');
    const grant = await tokenRequest(`grant_type=password&client_id=${p.client_id}&client_secret=${p.client_secret}`);
    expect([grant.status, grant.json.error]).toEqual([400, 'unsupported_grant_type']);
    const noGrant = await tokenRequest(`client_id=${p.client_id}&client_secret=${p.client_secret}`);
    expect([noGrant.status, noGrant.json.error]).toEqual([400, 'invalid_request']);
    const both = await tokenRequest(`grant_type=client_credentials&client_id=${p.client_id}`, {
      ...FORM,
      authorization: basic(p.client_id, p.client_secret),
    });
    expect([both.status, both.json.error]).toEqual([400, 'invalid_request']);
    const twice = await tokenRequest(
      `grant_type=client_credentials&grant_type=client_credentials&client_id=${p.client_id}&client_secret=${p.client_secret}`,
    );
    expect([twice.status, twice.json.error]).toEqual([400, 'invalid_request']);
    const json = await d.http.post('/oauth2/token', { grant_type: 'client_credentials' });
    expect([json.status, json.json.error]).toEqual([400, 'invalid_request']);
    const none = await tokenRequest('grant_type=client_credentials');
    expect([none.status, none.json.error]).toEqual([401, 'invalid_client']);
    const get = await d.http.get('/oauth2/token');
    expect([get.status, get.json.error]).toEqual([405, 'invalid_request']);
    const after = (await d.deps.db.selectFrom('service_principal_tokens').select('id').execute()).length;
    expect(after).toBe(before);
  });
});

describe("a principal's token", () => {
  let sp: HttpClient;
  beforeAll(async () => {
    sp = await tokenOf(await newPrincipal());
    await createBox(stranger, 'other', 'theirs');
  });

  it('publishes to its organization through the Vagrant Cloud API v1 and v2', async () => {
    const who = await sp.get('/api/v2/authenticate');
    expect(who.status).toBe(200);
    expect(who.json.user.username).toEqual(expect.any(String));
    await createBox(sp, 'acme', 'base', { private: true });
    await publish(sp, 'acme', 'base', '1.0.0', { api: 'v1' });
    await publish(sp, 'acme', 'base', '1.1.0', { api: 'v2', architecture: 'amd64' });
    const seen = await owner.get('/api/v2/box/acme/base');
    expect(seen.json.versions.map((v: { version: string }) => v.version).sort()).toEqual(['1.0.0', '1.1.0']);
    expect((await sp.get('/api/v2/box/acme/base')).status).toBe(200);
    expect((await sp.put('/api/v2/box/acme/base', { box: { short_description: 'by ci' } })).status).toBe(200);
  });

  it('changes nothing of another organization, nor of a user', async () => {
    const boxes = await countRows(d, 'boxes');
    const other = await sp.post('/api/v1/boxes', { box: { username: 'other', name: 'mine' } });
    expect(other.status).toBe(403);
    const own = await sp.post('/api/v1/boxes', { box: { username: 'olivia', name: 'mine' } });
    expect(own.status).toBe(403);
    expect((await sp.post('/api/v2/box/other/theirs/versions', { version: { version: '9.9.9' } })).status).toBe(403);
    expect((await sp.delete('/api/v2/box/other/theirs')).status).toBe(403);
    expect(await countRows(d, 'boxes')).toBe(boxes);
  });

  it.each([
    ['GET', '/api/boxyard/user'],
    ['GET', '/api/boxyard/session'],
    ['GET', '/api/boxyard/tokens'],
    ['POST', '/api/boxyard/tokens'],
    ['DELETE', '/api/v1/authenticate'],
    ['GET', '/api/boxyard/users'],
    ['GET', '/api/boxyard/organizations'],
    ['GET', '/api/boxyard/organizations/acme'],
    ['PATCH', '/api/boxyard/organizations/acme'],
    ['PUT', '/api/boxyard/organizations/acme/members/sam'],
    ['GET', '/api/boxyard/organizations/acme/service-principals'],
    ['POST', '/api/boxyard/organizations/acme/service-principals'],
    ['GET', '/api/boxyard/settings'],
    ['GET', '/api/boxyard/mirrors'],
    ['GET', '/api/v2/organizations'],
    ['GET', '/api/v2/organizations/acme/workspaces'],
    ['GET', '/api/v2/organizations/acme/agent-pools'],
    ['POST', '/api/v2/organizations/acme/agent-pools', { data: { type: 'agent-pools', attributes: { name: 'p' } } }],
  ])('is refused at %s %s', async (method, path, body: unknown = method === 'GET' ? undefined : {}) => {
    const r = await sp.request(method, path, { body });
    expect(r.status, r.text).toBe(403);
  });

  it('stops at once when its principal is revoked, and so does an upload URL it made', async () => {
    const p = await newPrincipal();
    const token = await tokenOf(p);
    await createBox(token, 'acme', 'revoked', { private: false });
    await publish(token, 'acme', 'revoked', '1.0.0', { release: false });
    const upload = await token.get('/api/v2/box/acme/revoked/version/1.0.0/provider/virtualbox/upload');
    expect(upload.status, upload.text).toBe(200);
    expect((await owner.delete(`${principals('acme')}/${p.client_id}`)).status).toBe(204);
    expect((await token.get('/api/v2/authenticate')).status).toBe(401);
    expect((await token.post('/api/v1/boxes', { box: { username: 'acme', name: 'late' } })).status).toBe(401);
    const put = await d.http.put(upload.json.upload_path, 'box bytes', { raw: true, headers: {} });
    expect(put.status).toBe(403);
    const again = await tokenRequest(
      `grant_type=client_credentials&client_id=${p.client_id}&client_secret=${p.client_secret}`,
    );
    expect(again.status).toBe(401);
    expect((await owner.delete(`${principals('acme')}/${p.client_id}`)).status).toBe(404);
  });

  it('uploads a box file through a URL it made', async () => {
    await publish(sp, 'acme', 'base', '2.0.0', { release: false });
    const upload = await sp.get('/api/v2/box/acme/base/version/2.0.0/provider/virtualbox/upload');
    expect(upload.status, upload.text).toBe(200);
    const put = await d.http.put(upload.json.upload_path, 'box bytes', { raw: true, headers: {} });
    expect(put.status, put.text).toBe(200);
  });
});

describe('wrong credentials', () => {
  let limited: TestDaemon;
  beforeAll(async () => {
    limited = await startTestDaemon({ config: { loginAttempts: 3 } });
  });
  afterAll(() => limited.stop());

  it('are counted as failed logins are', async () => {
    const own = limited.http.withToken(limited.adminToken);
    const made = await own.post('/api/boxyard/organizations', { organization: { name: 'lab' } });
    expect(made.status).toBe(201);
    const p = (await own.post(principals('lab'), { service_principal: { name: 'ci' } })).json.service_principal;
    const guess = () =>
      limited.http.post('/oauth2/token', `grant_type=client_credentials&client_id=${p.client_id}&client_secret=guess`, {
        raw: true,
        headers: FORM,
      });
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await guess()).status);
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
    const right = await limited.http.post(
      '/oauth2/token',
      `grant_type=client_credentials&client_id=${p.client_id}&client_secret=${p.client_secret}`,
      { raw: true, headers: FORM },
    );
    expect(right.status).toBe(429);
  });
});
