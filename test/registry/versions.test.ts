import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient } from '../helpers/http';
import { createBox } from '../helpers/registry';

let d: TestDaemon;
let alice: { token: string; http: HttpClient };
let carol: { token: string; http: HttpClient };
const V1 = '/api/v1/box/alice/lifecycle';
const V2 = '/api/v2/box/alice/lifecycle';

const status = async (version: string) =>
  (
    await d.deps.db
      .selectFrom('box_versions')
      .innerJoin('boxes', 'boxes.id', 'box_versions.box_id')
      .select('status')
      .where('boxes.name', '=', 'lifecycle')
      .where('version', '=', version)
      .executeTakeFirst()
  )?.status;

beforeAll(async () => {
  d = await startTestDaemon();
  alice = await d.user('alice');
  carol = await d.user('carol');
  await createBox(alice.http, 'alice', 'lifecycle');
});
afterAll(() => d.stop());

describe('versions', () => {
  it('creates an unreleased version with links under the API version used', async () => {
    const r = await alice.http.post(`${V1}/versions`, { version: { version: '1.0.0', description: 'first' } });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      version: '1.0.0',
      number: '1.0.0',
      status: 'unreleased',
      description_markdown: 'first',
      providers: [],
    });
    expect(r.json.created_at).toEqual(expect.any(String));
    expect(r.json.release_url).toBe(`${d.url}/api/v1/box/alice/lifecycle/version/1.0.0/release`);
    const v2 = await alice.http.get(`${V2}/version/1.0.0`);
    expect(v2.status).toBe(200);
    expect(v2.json.release_url).toBe(`${d.url}/api/v2/box/alice/lifecycle/version/1.0.0/release`);
    expect(v2.json.revoke_url).toBe(`${d.url}/api/v2/box/alice/lifecycle/version/1.0.0/revoke`);
    expect(await status('1.0.0')).toBe('unreleased');
  });

  it.each(['v1.0', '1..0', '', 'latest', '1.0/../2'])(
    'rejects %j as not a Ruby Gem version (403) and stores nothing',
    async (v) => {
      const r = await alice.http.post(`${V1}/versions`, { version: { version: v } });
      expect(r.status).toBe(403);
      expect(r.json.success).toBe(false);
      expect(r.json.errors[0]).toMatch(/version/);
      expect(await status(v)).toBeUndefined();
    },
  );

  it('answers 422 for a duplicate version', async () => {
    const r = await alice.http.post(`${V1}/versions`, { version: { version: '1.0.0' } });
    expect(r.status).toBe(422);
    expect(r.json.errors[0]).toMatch(/already exists/);
  });

  it('updates the description, keeping the number when version is null', async () => {
    const r = await alice.http.put(`${V1}/version/1.0.0`, { version: { version: null, description: 'changed' } });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ version: '1.0.0', description_markdown: 'changed' });
  });

  it('needs a token (401) and membership (403 on a public box) to change versions', async () => {
    expect((await d.http.post(`${V1}/versions`, { version: { version: '9.9.9' } })).status).toBe(401);
    const r = await carol.http.put(`${V1}/version/1.0.0`, { version: { description: 'nope' } });
    expect(r.status).toBe(403);
    expect((await alice.http.get(`${V1}/version/1.0.0`)).json.description_markdown).toBe('changed');
    expect(await status('9.9.9')).toBeUndefined();
  });

  it('answers 404 for an unknown version', async () => {
    const r = await alice.http.get(`${V1}/version/7.7.7`);
    expect(r.status).toBe(404);
    expect(r.json.errors[0]).toMatch(/no version "7.7.7"/);
  });
});

describe('release and revoke', () => {
  it('refuses to release without a usable provider (422)', async () => {
    const r = await alice.http.put(`${V1}/version/1.0.0/release`);
    expect(r.status).toBe(422);
    expect(r.json.errors[0]).toMatch(/at least one provider/);
    // A hosted provider with nothing uploaded is not usable either.
    await alice.http.post(`${V1}/version/1.0.0/providers`, { provider: { name: 'libvirt', url: null } });
    expect((await alice.http.put(`${V1}/version/1.0.0/release`)).status).toBe(422);
    expect(await status('1.0.0')).toBe('unreleased');
  });

  it('refuses to revoke an unreleased version (422)', async () => {
    const r = await alice.http.put(`${V1}/version/1.0.0/revoke`);
    expect(r.status).toBe(422);
    expect(await status('1.0.0')).toBe('unreleased');
  });

  it('releases once a hosted image is attached, then refuses a second release', async () => {
    const owner = await d.deps.tokens.resolve(alice.token);
    const { provider } = await d.deps.registry.resolveProvider(
      owner,
      { username: 'alice', box: 'lifecycle', version: '1.0.0', provider: 'libvirt' },
      'read',
    );
    await d.deps.registry.attachBlob(provider.id, { sha256: 'a'.repeat(64), size: 10 });
    const r = await alice.http.put(`${V2}/version/1.0.0/release`, undefined, {
      headers: { 'content-type': 'application/json' },
    });
    expect(r.status).toBe(200);
    expect(r.json.status).toBe('active');
    expect(r.json.release_url).toContain('/api/v2/');
    expect(await status('1.0.0')).toBe('active');
    const again = await alice.http.put(`${V1}/version/1.0.0/release`);
    expect(again.status).toBe(422);
    expect(again.json).toEqual({
      errors: [expect.stringContaining('already been released')],
      success: false,
      code: 'conflict',
    });
    expect((await alice.http.get('/api/v1/box/alice/lifecycle')).json.current_version.version).toBe('1.0.0');
  });

  it('revokes an active version once, and never releases it again', async () => {
    const r = await alice.http.put(`${V1}/version/1.0.0/revoke`);
    expect(r.status).toBe(200);
    expect(r.json.status).toBe('revoked');
    expect(await status('1.0.0')).toBe('revoked');
    const twice = await alice.http.put(`${V1}/version/1.0.0/revoke`);
    expect(twice.status).toBe(422);
    expect(twice.json.errors[0]).toMatch(/already been revoked/);
    const release = await alice.http.put(`${V1}/version/1.0.0/release`);
    expect(release.status).toBe(422);
    expect(release.json.errors[0]).toMatch(/revoked and cannot be released again/);
    expect(await status('1.0.0')).toBe('revoked');
    expect((await alice.http.get('/api/v1/box/alice/lifecycle')).json.current_version).toBeNull();
  });

  it('picks the highest released version by Ruby Gem ordering as current_version', async () => {
    for (const v of ['1.10.0', '1.9.0', '2.0.0-beta']) {
      await alice.http.post(`${V1}/versions`, { version: { version: v } });
      await alice.http.post(`${V1}/version/${v}/providers`, {
        provider: { name: 'virtualbox', url: `https://boxes.example/${v}.box` },
      });
    }
    for (const v of ['1.9.0', '1.10.0']) expect((await alice.http.put(`${V1}/version/${v}/release`)).status).toBe(200);
    const box = await alice.http.get('/api/v1/box/alice/lifecycle');
    expect(box.json.current_version.version).toBe('1.10.0');
    expect(box.json.versions.map((v: { version: string }) => v.version)).toEqual([
      '2.0.0-beta',
      '1.10.0',
      '1.9.0',
      '1.0.0',
    ]);
    // Anyone else: the same current version, and no unreleased one.
    const shown = await d.http.get('/api/v1/box/alice/lifecycle');
    expect(shown.json.current_version.version).toBe('1.10.0');
    expect(shown.json.versions.map((v: { version: string }) => v.version)).toEqual(['1.10.0', '1.9.0', '1.0.0']);
  });

  it('deletes a version with its providers and answers it', async () => {
    const r = await alice.http.delete(`${V1}/version/2.0.0-beta`);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ version: '2.0.0-beta', providers: [{ name: 'virtualbox' }] });
    expect(await status('2.0.0-beta')).toBeUndefined();
    const orphans = await d.deps.db
      .selectFrom('box_providers')
      .leftJoin('box_versions', 'box_versions.id', 'box_providers.version_id')
      .select('box_providers.id')
      .where('box_versions.id', 'is', null)
      .execute();
    expect(orphans).toEqual([]);
    expect((await alice.http.get(`${V1}/version/2.0.0-beta`)).status).toBe(404);
  });
});
