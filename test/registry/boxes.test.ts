import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orgNamed, startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient } from '../helpers/http';
import { countRows, createBox, publish } from '../helpers/registry';

let d: TestDaemon;
let alice: { token: string; http: HttpClient };
let bob: { token: string; http: HttpClient };
let carol: { token: string; http: HttpClient };

beforeAll(async () => {
  d = await startTestDaemon();
  alice = await d.user('alice', { orgs: ['acme'] });
  bob = await d.user('bob');
  carol = await d.user('carol');
  const acme = await orgNamed(d, 'acme');
  await d.deps.orgs.setMember(acme, 'bob', 'member');
});
afterAll(() => d.stop());

describe('POST /boxes', () => {
  it('accepts the flat body of vagrant_cloud 3.0.5 and defaults to private', async () => {
    const r = await alice.http.post('/api/v1/boxes', {
      username: 'alice',
      name: 'flat',
      short_description: 'Flat',
      description: 'Long *text*',
    });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      tag: 'alice/flat',
      name: 'flat',
      username: 'alice',
      private: true,
      downloads: 0,
      short_description: 'Flat',
      description_markdown: 'Long *text*',
      current_version: null,
      versions: [],
    });
    expect(r.json.created_at).toEqual(expect.any(String));
    const row = await d.deps.db.selectFrom('boxes').selectAll().where('name', '=', 'flat').executeTakeFirstOrThrow();
    expect(row.private).toBe(1);
  });

  it('accepts the wrapped body of gem 3.1 under /api/v2', async () => {
    const r = await alice.http.post('/api/v2/boxes', {
      box: { username: 'alice', name: 'wrapped', is_private: false, short_description: null },
    });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ tag: 'alice/wrapped', private: false, short_description: '' });
  });

  it('answers 422 for a duplicate name (case-insensitive) and keeps one box', async () => {
    const before = await countRows(d, 'boxes');
    const r = await alice.http.post('/api/v1/boxes', { box: { username: 'alice', name: 'FLAT' } });
    expect(r.status).toBe(422);
    expect(r.json).toEqual({ errors: [expect.stringContaining('already exists')], success: false, code: 'conflict' });
    expect(await countRows(d, 'boxes')).toBe(before);
  });

  it('needs a token (401) and membership of the namespace (403)', async () => {
    const before = await countRows(d, 'boxes');
    const anon = await d.http.post('/api/v1/boxes', { box: { username: 'alice', name: 'x' } });
    expect(anon.status).toBe(401);
    expect(anon.json.success).toBe(false);
    const bad = await d.http.withToken('not-a-token').post('/api/v1/boxes', { box: { username: 'alice', name: 'x' } });
    expect(bad.status).toBe(401);
    expect(bad.json.errors[0]).toMatch(/invalid or was revoked/);
    const other = await carol.http.post('/api/v1/boxes', { box: { username: 'alice', name: 'x' } });
    expect(other.status).toBe(403);
    expect(other.json.errors[0]).toMatch(/may not change boxes of "alice"/);
    const missing = await carol.http.post('/api/v1/boxes', { box: { username: 'nobody', name: 'x' } });
    expect(missing.status).toBe(404);
    expect(await countRows(d, 'boxes')).toBe(before);
  });

  it('defaults the owner to the caller', async () => {
    const r = await carol.http.post('/api/v1/boxes', { box: { name: 'mine' } });
    expect(r.status).toBe(200);
    expect(r.json.tag).toBe('carol/mine');
  });
});

describe('organization boxes', () => {
  it('lets members create, change and delete boxes of the organization', async () => {
    const c = await bob.http.post('/api/v1/boxes', { box: { username: 'acme', name: 'base', is_private: true } });
    expect(c.status).toBe(200);
    expect(c.json.tag).toBe('acme/base');
    const u = await bob.http.put('/api/v1/box/acme/base', { box: { short_description: 'by bob' } });
    expect(u.status).toBe(200);
    expect(u.json.short_description).toBe('by bob');
    expect((await alice.http.get('/api/v1/box/acme/base')).json.short_description).toBe('by bob');
  });

  it('hides private organization boxes from outsiders (404) and refuses their changes', async () => {
    expect((await carol.http.get('/api/v1/box/acme/base')).status).toBe(404);
    expect((await d.http.get('/api/v1/box/acme/base')).status).toBe(404);
    const put = await carol.http.put('/api/v1/box/acme/base', { box: { short_description: 'hijack' } });
    expect(put.status).toBe(404);
    expect((await alice.http.get('/api/v1/box/acme/base')).json.short_description).toBe('by bob');
  });

  it('answers 403 when an outsider changes a public box', async () => {
    await createBox(alice.http, 'acme', 'public-one');
    const r = await carol.http.delete('/api/v1/box/acme/public-one');
    expect(r.status).toBe(403);
    expect(r.json.errors[0]).toMatch(/Ask an owner of "acme"/);
    expect((await d.http.get('/api/v1/box/acme/public-one')).status).toBe(200);
  });

  it('deletes the boxes, versions and providers of a deleted organization', async () => {
    await d.deps.orgs.create({ name: 'doomed' }, await d.deps.accounts.userNamed('alice'));
    await createBox(alice.http, 'doomed', 'gone');
    await publish(alice.http, 'doomed', 'gone', '1.0.0');
    const before = {
      boxes: await countRows(d, 'boxes'),
      versions: await countRows(d, 'box_versions'),
      providers: await countRows(d, 'box_providers'),
    };
    await d.deps.orgs.delete(await orgNamed(d, 'doomed'));
    expect(await countRows(d, 'boxes')).toBe(before.boxes - 1);
    expect(await countRows(d, 'box_versions')).toBe(before.versions - 1);
    expect(await countRows(d, 'box_providers')).toBe(before.providers - 1);
    expect((await alice.http.get('/api/v1/box/doomed/gone')).status).toBe(404);
  });
});

describe('reading a private box with each token transport', () => {
  beforeAll(async () => {
    await createBox(alice.http, 'alice', 'secret', { private: true });
  });

  it.each([
    ['Authorization: Bearer', (t: string) => ({ headers: { authorization: `Bearer ${t}` } }), ''],
    ['X-Atlas-Token', (t: string) => ({ headers: { 'x-atlas-token': t } }), ''],
    ['?access_token=', () => ({}), '?access_token='],
  ])('%s', async (_name, opts, query) => {
    const path = `/api/v1/box/alice/secret${query ? query + alice.token : ''}`;
    const r = await d.http.get(path, opts(alice.token));
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ tag: 'alice/secret', private: true });
  });

  it('is 404 without a token, with a bad token and for non-members', async () => {
    expect((await d.http.get('/api/v1/box/alice/secret')).status).toBe(404);
    expect((await d.http.get('/api/v1/box/alice/secret', { headers: { 'x-atlas-token': 'nope' } })).status).toBe(404);
    const r = await carol.http.get('/api/v2/box/alice/secret');
    expect(r.status).toBe(404);
    expect(r.json).toEqual({ errors: [expect.stringContaining('not found')], success: false, code: 'not_found' });
  });

  it('is visible to administrators', async () => {
    expect((await d.http.withToken(d.adminToken).get('/api/v1/box/alice/secret')).status).toBe(200);
  });
});

describe('PUT and DELETE /box/:username/:name', () => {
  it('treats null as unchanged and renames', async () => {
    await alice.http.post('/api/v1/boxes', {
      box: { username: 'alice', name: 'editme', short_description: 'keep', is_private: false },
    });
    const r = await alice.http.put('/api/v1/box/alice/editme', {
      box: { name: 'edited', short_description: null, description: 'new', is_private: null },
    });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      tag: 'alice/edited',
      short_description: 'keep',
      description_markdown: 'new',
      private: false,
    });
    expect((await alice.http.get('/api/v1/box/alice/editme')).status).toBe(404);
  });

  it('refuses a rename onto an existing box (422)', async () => {
    const r = await alice.http.put('/api/v1/box/alice/edited', { box: { name: 'wrapped' } });
    expect(r.status).toBe(422);
    expect((await alice.http.get('/api/v1/box/alice/edited')).status).toBe(200);
  });

  it('deletes with an empty JSON body (vagrant_cloud 3.0.5) and answers the deleted box', async () => {
    await publish(alice.http, 'alice', 'edited', '1.0.0');
    const r = await alice.http.request('DELETE', '/api/v1/box/alice/edited', {
      headers: { 'content-type': 'application/json' },
    });
    expect(r.status).toBe(200);
    expect(r.json.tag).toBe('alice/edited');
    expect(r.json.versions).toHaveLength(1);
    expect((await alice.http.get('/api/v1/box/alice/edited')).status).toBe(404);
    const rows = await d.deps.db
      .selectFrom('box_versions')
      .innerJoin('boxes', 'boxes.id', 'box_versions.box_id')
      .select('box_versions.id')
      .where('boxes.name', '=', 'edited')
      .execute();
    expect(rows).toHaveLength(0);
  });

  it('needs a token to delete (401) and changes nothing', async () => {
    const before = await countRows(d, 'boxes');
    expect((await d.http.delete('/api/v1/box/alice/wrapped')).status).toBe(401);
    expect(await countRows(d, 'boxes')).toBe(before);
  });
});

describe('GET /user/:username', () => {
  it('lists the boxes the caller may see, without versions', async () => {
    await publish(alice.http, 'alice', 'wrapped', '2.0.0');
    const anon = await d.http.get('/api/v1/user/alice');
    expect(anon.status).toBe(200);
    expect(anon.json).toMatchObject({ username: 'alice' });
    const names = anon.json.boxes.map((b: { name: string }) => b.name);
    expect(names).toContain('wrapped');
    expect(names).not.toContain('secret');
    for (const b of anon.json.boxes) expect(b).not.toHaveProperty('versions');
    const wrapped = anon.json.boxes.find((b: { name: string }) => b.name === 'wrapped');
    expect(wrapped.current_version.version).toBe('2.0.0');
    const own = await alice.http.get('/api/v2/user/alice');
    expect(own.json.boxes.map((b: { name: string }) => b.name)).toContain('secret');
  });

  it('lists organizations too, and 404s unknown names', async () => {
    const r = await bob.http.get('/api/v1/user/acme');
    expect(r.status).toBe(200);
    expect(r.json.username).toBe('acme');
    expect(r.json.boxes.map((b: { name: string }) => b.name)).toEqual(expect.arrayContaining(['base', 'public-one']));
    expect((await carol.http.get('/api/v1/user/acme')).json.boxes.map((b: { name: string }) => b.name)).toEqual([
      'public-one',
    ]);
    expect((await d.http.get('/api/v1/user/nobody')).status).toBe(404);
  });
});
