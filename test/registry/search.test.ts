import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../daemon/src/lib/clock';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient } from '../helpers/http';
import { createBox, publish } from '../helpers/registry';

/** The only box keys vagrant_cloud 3.0.5 accepts in a search hit. */
const ALLOWED = [
  'name',
  'username',
  'tag',
  'private',
  'downloads',
  'created_at',
  'updated_at',
  'short_description',
  'description',
  'description_html',
  'description_markdown',
  'current_version',
  'versions',
];

let d: TestDaemon;
let alice: { token: string; http: HttpClient };
let bob: { token: string; http: HttpClient };
const clock = new ManualClock(new Date('2026-01-01T00:00:00Z'));
const tags = (r: { json: { boxes: Array<{ tag: string }> } }) => r.json.boxes.map((b) => b.tag);

beforeAll(async () => {
  d = await startTestDaemon({ clock });
  alice = await d.user('alice');
  bob = await d.user('bob');
  // Created one hour apart, in this order: ubuntu, debian, fedora (libvirt, arm64), 100%-box.
  for (const [owner, http, name, short] of [
    ['alice', alice.http, 'ubuntu', 'Ubuntu Server'],
    ['alice', alice.http, 'debian', 'Debian stable'],
    ['bob', bob.http, 'fedora', 'Fedora for ubuntu fans'],
    ['bob', bob.http, '100-box', 'Literally 100% done'],
  ] as const) {
    clock.advance(3_600_000);
    await createBox(http, owner, name, { short });
    await publish(
      http,
      owner,
      name,
      '1.0.0',
      name === 'fedora' ? { provider: 'libvirt', architecture: 'arm64' } : { architecture: 'amd64' },
    );
  }
  await createBox(alice.http, 'alice', 'unreleased');
  await publish(alice.http, 'alice', 'unreleased', '1.0.0', { release: false });
  await createBox(alice.http, 'alice', 'hidden', { private: true });
  await publish(alice.http, 'alice', 'hidden', '1.0.0');
  const ids = await d.deps.db.selectFrom('boxes').select(['id', 'name']).execute();
  const downloads: Record<string, number> = { debian: 5, fedora: 9, ubuntu: 1 };
  for (const b of ids) for (let i = 0; i < (downloads[b.name] ?? 0); i++) await d.deps.registry.countDownload(b.id);
  clock.advance(3_600_000);
  await alice.http.put('/api/v1/box/alice/ubuntu', { box: { description: 'touched last' } });
});
afterAll(() => d.stop());

describe('GET /search', () => {
  it('answers exactly {"boxes":[…]} with the allowed keys and a current_version on every hit', async () => {
    const r = await d.http.get('/api/v1/search');
    expect(r.status).toBe(200);
    expect(Object.keys(r.json)).toEqual(['boxes']);
    expect(r.json.boxes.length).toBe(4);
    for (const b of r.json.boxes) {
      expect(ALLOWED).toEqual(expect.arrayContaining(Object.keys(b)));
      expect(b.current_version).not.toBeNull();
      expect(b.current_version.status).toBe('active');
    }
  });

  it('defaults to most downloads first and leaves out unreleased and private boxes', async () => {
    const r = await d.http.get('/api/v1/search');
    expect(tags(r)).toEqual(['bob/fedora', 'alice/debian', 'alice/ubuntu', 'bob/100-box']);
    expect(r.json.boxes[0].downloads).toBe(9);
  });

  it('answers under its prefix in any case, as the routes match (the prefix skip in app.ts keeps that)', async () => {
    expect(tags(await d.http.get('/API/V1/search?q=stable'))).toEqual(['alice/debian']);
  });

  it('shows private boxes to their owner', async () => {
    expect(tags(await alice.http.get('/api/v2/search?q=hidden'))).toEqual(['alice/hidden']);
    expect(tags(await bob.http.get('/api/v2/search?q=hidden'))).toEqual([]);
  });

  it('matches q against name, username and short description, case-insensitively', async () => {
    expect(tags(await d.http.get('/api/v1/search?q=UBUNTU&sort=created&order=asc'))).toEqual([
      'alice/ubuntu',
      'bob/fedora',
    ]);
    expect(tags(await d.http.get('/api/v1/search?q=bob&sort=created&order=asc'))).toEqual([
      'bob/fedora',
      'bob/100-box',
    ]);
    expect(tags(await d.http.get('/api/v1/search?q=stable'))).toEqual(['alice/debian']);
  });

  it('takes % and _ in q literally', async () => {
    expect(tags(await d.http.get('/api/v1/search?q=100%25'))).toEqual(['bob/100-box']);
    expect(tags(await d.http.get('/api/v1/search?q=%25'))).toEqual(['bob/100-box']);
    expect(tags(await d.http.get('/api/v1/search?q=_'))).toEqual([]);
  });

  it('filters by provider and architecture', async () => {
    expect(tags(await d.http.get('/api/v1/search?provider=libvirt'))).toEqual(['bob/fedora']);
    expect(tags(await d.http.get('/api/v2/search?architecture=amd64&sort=created&order=asc'))).toEqual([
      'alice/ubuntu',
      'alice/debian',
      'bob/100-box',
    ]);
    expect(tags(await d.http.get('/api/v2/search?provider=virtualbox&architecture=arm64'))).toEqual([]);
  });

  it('sorts by created and updated in both orders', async () => {
    expect(tags(await d.http.get('/api/v1/search?sort=created'))).toEqual([
      'bob/100-box',
      'bob/fedora',
      'alice/debian',
      'alice/ubuntu',
    ]);
    expect(tags(await d.http.get('/api/v1/search?sort=created&order=asc'))).toEqual([
      'alice/ubuntu',
      'alice/debian',
      'bob/fedora',
      'bob/100-box',
    ]);
    expect(tags(await d.http.get('/api/v1/search?sort=updated'))[0]).toBe('alice/ubuntu');
  });

  it('sorts by name, from A unless asked otherwise, and pages that order', async () => {
    expect(tags(await d.http.get('/api/v1/search?sort=name'))).toEqual([
      'bob/100-box',
      'alice/debian',
      'bob/fedora',
      'alice/ubuntu',
    ]);
    expect(tags(await d.http.get('/api/v2/search?sort=name&order=desc'))).toEqual([
      'alice/ubuntu',
      'bob/fedora',
      'alice/debian',
      'bob/100-box',
    ]);
    expect(tags(await d.http.get('/api/v1/search?sort=name&limit=3&page=2'))).toEqual(['alice/ubuntu']);
    expect(tags(await alice.http.get('/api/v1/search?sort=name&q=e'))).toEqual([
      'bob/100-box',
      'alice/debian',
      'bob/fedora',
      'alice/hidden',
      'alice/ubuntu',
    ]);
    // The other sorts still default to descending.
    expect(tags(await d.http.get('/api/v1/search?sort=created'))[0]).toBe('bob/100-box');
  });

  it('pages with limit and page', async () => {
    const p1 = await d.http.get('/api/v1/search?sort=created&order=asc&limit=3');
    expect(tags(p1)).toEqual(['alice/ubuntu', 'alice/debian', 'bob/fedora']);
    expect(tags(await d.http.get('/api/v1/search?sort=created&order=asc&limit=3&page=2'))).toEqual(['bob/100-box']);
    expect(tags(await d.http.get('/api/v1/search?limit=3&page=99'))).toEqual([]);
    expect(tags(await d.http.get('/api/v1/search?limit=100&q='))).toHaveLength(4);
  });

  it.each([
    ['limit=101', /limit must be at most 100/],
    ['limit=0', /limit must be at least 1/],
    ['limit=abc', /limit/],
    ['page=0', /page must be at least 1/],
    ['page=1e400', /page/],
    ['limit=2.5', /whole number/],
    ['sort=size', /sort must be downloads, created, updated or name/],
    ['order=up', /order must be desc or asc/],
    ['architecture=x86', /architecture must be one of/],
    ['q=a&q=b', /q/],
  ])('rejects %s with 403 in the Vagrant dialect', async (query, message) => {
    const r = await d.http.get(`/api/v1/search?${query}`);
    expect(r.status).toBe(403);
    expect(r.json.success).toBe(false);
    expect(r.json.errors[0]).toMatch(message);
  });
});

describe('search pages kept as bytes', () => {
  it('follow a new release, a box changed and the API version asked', async () => {
    const release = (r: { json: { boxes: Array<{ current_version: { release_url: string; version: string } }> } }) =>
      r.json.boxes[0].current_version;
    const v1 = await d.http.get('/api/v1/search?q=debian');
    expect(release(v1).release_url).toBe(`${d.url}/api/v1/box/alice/debian/version/1.0.0/release`);
    expect((await d.http.get('/api/v1/search?q=debian')).text).toBe(v1.text);
    expect(release(await d.http.get('/api/v2/search?q=debian')).release_url).toBe(
      `${d.url}/api/v2/box/alice/debian/version/1.0.0/release`,
    );
    await publish(alice.http, 'alice', 'debian', '2.0.0');
    expect(release(await d.http.get('/api/v1/search?q=debian')).version).toBe('2.0.0');
    expect(
      (await alice.http.put('/api/v1/box/alice/debian', { box: { short_description: 'Debian testing' } })).status,
    ).toBe(200);
    expect((await d.http.get('/api/v1/search?q=debian')).json.boxes[0].short_description).toBe('Debian testing');
    expect((await d.http.get('/api/v1/search?q=nothing-like-it')).json).toEqual({ boxes: [] });
  });
});
