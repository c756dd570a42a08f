import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BoxListAnswer } from '../../daemon/src/contract/wire/box-list';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient } from '../helpers/http';
import { createBox, publish } from '../helpers/registry';

// GET /api/boxyard/boxes: the web UI's box list, one page per request. Anyone gets what
// GET /search finds for them; `mine=true` pages the caller's own namespaces, released or not.

let d: TestDaemon;
let alice: HttpClient;
let bob: HttpClient;

beforeAll(async () => {
  d = await startTestDaemon();
  alice = (await d.user('alice', { orgs: ['acme'] })).http;
  bob = (await d.user('bob')).http;
  for (const name of ['delta', 'alpha', 'Charlie']) {
    await createBox(alice, 'alice', name);
    await publish(alice, 'alice', name, '1.0.0');
  }
  await createBox(alice, 'alice', 'draft');
  await createBox(alice, 'acme', 'secret', { private: true });
  await publish(alice, 'acme', 'secret', '1.0.0', { provider: 'libvirt', architecture: 'arm64' });
  await createBox(bob, 'bob', 'bravo');
  await publish(bob, 'bob', 'bravo', '2.0.0');
  await createBox(bob, 'bob', 'hidden', { private: true });
  await publish(bob, 'bob', 'hidden', '1.0.0');
});
afterAll(() => d?.stop());

/** The answer, checked against the contract the UI reads it with: nothing missing, nothing more. */
async function list(http: HttpClient, query: string) {
  const r = await http.get(`/api/boxyard/boxes?${query}`);
  expect(r.status, r.text).toBe(200);
  expect(BoxListAnswer.parse(r.json)).toEqual(r.json);
  const answer = r.json as BoxListAnswer;
  return { tags: answer.boxes.map((b) => b.tag), page: answer.page, next: answer.next_page };
}

describe('GET /api/boxyard/boxes', () => {
  it('shows a visitor who is not signed in the public released boxes, a page at a time', async () => {
    expect(await list(d.http, 'sort=name&limit=2')).toEqual({ tags: ['alice/alpha', 'bob/bravo'], page: 1, next: 2 });
    expect(await list(d.http, 'sort=name&limit=2&page=2')).toEqual({
      tags: ['alice/Charlie', 'alice/delta'],
      page: 2,
      next: null,
    });
    expect(await list(d.http, 'sort=name&limit=2&page=3')).toEqual({ tags: [], page: 3, next: null });
    expect((await list(d.http, 'sort=name&order=desc')).tags).toEqual([
      'alice/delta',
      'alice/Charlie',
      'bob/bravo',
      'alice/alpha',
    ]);
  });

  it('shows a signed-in user what search finds for them: private boxes of their namespaces too', async () => {
    expect((await list(alice, 'sort=name')).tags).toEqual([
      'alice/alpha',
      'bob/bravo',
      'alice/Charlie',
      'alice/delta',
      'acme/secret',
    ]);
    expect((await list(alice, 'provider=libvirt&architecture=arm64')).tags).toEqual(['acme/secret']);
  });

  it('with mine=true, pages the caller’s own and organizations’ boxes, released or not, and no one else’s', async () => {
    expect(await list(alice, 'mine=true&sort=name&limit=3')).toEqual({
      tags: ['alice/alpha', 'alice/Charlie', 'alice/delta'],
      page: 1,
      next: 2,
    });
    expect(await list(alice, 'mine=true&sort=name&limit=3&page=2')).toEqual({
      tags: ['alice/draft', 'acme/secret'],
      page: 2,
      next: null,
    });
    expect((await list(bob, 'mine=true&sort=name')).tags).toEqual(['bob/bravo', 'bob/hidden']);
    expect((await list(alice, 'mine=true&q=dra')).tags).toEqual(['alice/draft']);
    // A box with no release has no current version to show.
    const draft = (await alice.get('/api/boxyard/boxes?mine=true&q=draft')).json.boxes[0];
    expect(draft.current_version).toBeNull();
  });

  it('asks a visitor to sign in for mine=true', async () => {
    const r = await d.http.get('/api/boxyard/boxes?mine=true');
    expect(r.status).toBe(401);
    expect(r.json.code).toBe('unauthorized');
  });

  it.each([
    ['mine=yes', /mine must be true or false/],
    ['sort=size', /sort must be downloads, created, updated or name/],
    ['limit=101', /limit must be at most 100/],
    ['page=0', /page must be at least 1/],
  ])('rejects %s, naming the parameter', async (query, message) => {
    const r = await d.http.get(`/api/boxyard/boxes?${query}`);
    expect(r.status).toBe(403);
    expect(r.json.code).toBe('bad_parameter');
    expect(r.json.errors[0]).toMatch(message);
  });
});

describe('GET /ORG/BOX for everything that is not a browser', () => {
  const ACCEPTS: Array<[string, Record<string, string>]> = [
    [
      'vagrant (application/json)',
      { accept: 'application/json', 'user-agent': 'Vagrant/2.4.1 (+https://www.vagrantup.com; ruby3.1.2)' },
    ],
    ['curl (*/*)', { accept: '*/*', 'user-agent': 'curl/7.88.1' }],
    ['no Accept at all', { accept: '' }],
    ['JSON preferred to HTML', { accept: 'text/html;q=0.5, application/json' }],
    ['JSON and HTML alike (JSON wins the tie)', { accept: 'application/json, text/html' }],
  ];

  it.each(ACCEPTS)('answers %s the catalog, byte for byte, with Vary: Accept', async (_, headers) => {
    // The reference: the catalog vagrant ≥ 2.4 reads first, which knows nothing of browsers.
    const reference = await d.http.get('/api/v2/vagrant/alice/alpha', { headers: { accept: 'application/json' } });
    expect(reference.status).toBe(200);
    const r = await d.http.get('/alice/alpha', { headers });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.headers.get('vary')).toMatch(/\bAccept\b/i);
    expect(r.text).toBe(reference.text);
    expect(r.json.name).toBe('alice/alpha');
  });

  it('answers HEAD with the catalog’s JSON type and Vary too', async () => {
    const r = await d.http.head('/alice/alpha', { headers: { accept: 'application/json' } });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.headers.get('vary')).toMatch(/\bAccept\b/i);
  });

  it('answers a private box 404 to a visitor, JSON as before', async () => {
    const r = await d.http.get('/bob/hidden', { headers: { accept: 'application/json' } });
    expect(r.status).toBe(404);
    expect(r.json.success).toBe(false);
  });
});
