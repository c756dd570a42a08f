import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { principalOf, startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient } from '../helpers/http';
import { createBox, snapshot } from '../helpers/registry';

let d: TestDaemon;
let alice: { token: string; http: HttpClient };
let carol: { token: string; http: HttpClient };
const V1 = '/api/v1/box/alice/multi/version/1.0.0';
const V2 = '/api/v2/box/alice/multi/version/1.0.0';
const SHA256 = 'ab'.repeat(32);

async function rows() {
  return d.deps.db
    .selectFrom('box_providers')
    .select(['name', 'architecture', 'default_architecture', 'url', 'checksum', 'checksum_type'])
    .orderBy('name')
    .orderBy('architecture')
    .execute();
}

beforeAll(async () => {
  d = await startTestDaemon();
  alice = await d.user('alice');
  carol = await d.user('carol');
  await createBox(alice.http, 'alice', 'multi');
  // 1.0.0 stays unreleased: only who may manage the box reads its providers.
  expect((await alice.http.post('/api/v1/box/alice/multi/versions', { version: { version: '1.0.0' } })).status).toBe(
    200,
  );
});
afterAll(() => d.stop());

describe('creating providers', () => {
  it('v1: no architecture, url null means hosted; the first of a name is the default', async () => {
    const r = await alice.http.post(`${V1}/providers`, {
      provider: { name: 'virtualbox', url: null, checksum: null, checksum_type: null },
    });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      name: 'virtualbox',
      architecture: 'unknown',
      default_architecture: true,
      hosted: true,
      original_url: null,
      checksum: null,
    });
    expect(r.json.created_at).toEqual(expect.any(String));
    expect(r.json.download_url).toBe(
      `${d.url}/alice/boxes/multi/versions/1.0.0/providers/virtualbox/unknown/vagrant.box`,
    );
  });

  it('v2: architectures; a new default clears the flag on the others', async () => {
    const a = await alice.http.post(`${V2}/providers`, {
      provider: {
        name: 'libvirt',
        architecture: 'amd64',
        url: 'https://boxes.example/a.box',
        checksum: SHA256.toUpperCase(),
        checksum_type: 'SHA256',
      },
    });
    expect(a.status).toBe(200);
    expect(a.json).toMatchObject({
      architecture: 'amd64',
      default_architecture: true,
      hosted: false,
      download_url: 'https://boxes.example/a.box',
      checksum: SHA256,
      checksum_type: 'sha256',
    });
    const b = await alice.http.post(`${V2}/providers`, {
      provider: { name: 'libvirt', architecture: 'arm64', url: 'https://boxes.example/b.box' },
    });
    expect(b.json.default_architecture).toBe(false);
    const c = await alice.http.post(`${V2}/providers`, {
      provider: {
        name: 'libvirt',
        architecture: 'i386',
        url: 'https://boxes.example/c.box',
        default_architecture: true,
      },
    });
    expect(c.json.default_architecture).toBe(true);
    const libvirt = (await rows()).filter((r) => r.name === 'libvirt');
    expect(libvirt.map((r) => [r.architecture, r.default_architecture])).toEqual([
      ['amd64', 0],
      ['arm64', 0],
      ['i386', 1],
    ]);
  });

  it('answers 422 for a second entry with the same name and architecture', async () => {
    const before = await rows();
    const r = await alice.http.post(`${V2}/providers`, {
      provider: { name: 'libvirt', architecture: 'arm64', url: 'https://boxes.example/dup.box' },
    });
    expect(r.status).toBe(422);
    expect(r.json.errors[0]).toMatch(/already has a provider "libvirt" for architecture "arm64"/);
    expect(await rows()).toEqual(before);
  });

  it.each([
    [{ checksum: 'abc', checksum_type: 'sha256' }, /64 hexadecimal/],
    [{ checksum: 'z'.repeat(32), checksum_type: 'md5' }, /32 hexadecimal/],
    [{ checksum: SHA256, checksum_type: 'crc32' }, /checksum_type must be one of/],
    [{ checksum: SHA256 }, /checksum_type must be one of/],
    [{ architecture: 'x86_64' }, /architecture must be one of/],
    [{ url: 'ftp://boxes.example/x.box' }, /http or https/],
    [{ url: 'javascript:alert(1)' }, /http or https/],
  ])('rejects %j with 403 and stores nothing', async (extra, message) => {
    const before = await rows();
    const r = await alice.http.post(`${V2}/providers`, {
      provider: { name: 'hyperv', url: 'https://boxes.example/h.box', ...extra },
    });
    expect(r.status).toBe(403);
    expect(r.json.errors[0]).toMatch(message);
    expect(await rows()).toEqual(before);
  });

  it('needs membership to add providers', async () => {
    const before = await rows();
    expect((await carol.http.post(`${V1}/providers`, { provider: { name: 'hyperv' } })).status).toBe(403);
    expect((await d.http.post(`${V1}/providers`, { provider: { name: 'hyperv' } })).status).toBe(401);
    expect(await rows()).toEqual(before);
  });
});

describe('reading providers', () => {
  it('v1 path resolves to the default-architecture entry, v2 to the named one', async () => {
    const v1 = await alice.http.get(`${V1}/provider/libvirt`);
    expect(v1.status).toBe(200);
    expect(v1.json).toMatchObject({ architecture: 'i386', default_architecture: true });
    const v2 = await alice.http.get(`${V2}/provider/libvirt/arm64`);
    expect(v2.json).toMatchObject({
      architecture: 'arm64',
      download_url: 'https://boxes.example/b.box',
      checksum: null,
      checksum_type: null,
    });
    const sum = await alice.http.get(`${V2}/provider/libvirt/amd64`);
    expect(sum.json).toMatchObject({ checksum: SHA256, checksum_type: 'sha256' });
  });

  it('answers 404 for a missing architecture, an invalid one and an unknown provider', async () => {
    const missing = await alice.http.get(`${V2}/provider/libvirt/s390x`);
    expect(missing.status).toBe(404);
    expect(missing.json.errors[0]).toMatch(/no provider "libvirt" for architecture "s390x"/);
    const invalid = await alice.http.get(`${V2}/provider/libvirt/x86_64`);
    expect(invalid.status).toBe(404);
    expect(invalid.json.errors[0]).toMatch(/not an architecture/);
    expect((await alice.http.get(`${V1}/provider/docker`)).status).toBe(404);
  });

  it('advertises the uploaded sha256 of a hosted provider without a declared checksum', async () => {
    const ref = { username: 'alice', box: 'multi', version: '1.0.0', provider: 'virtualbox' };
    await expect(d.deps.registry.resolveProvider(null, ref, 'manage')).rejects.toMatchObject({ code: 'unauthorized' });
    const outsider = await principalOf(d, carol.token);
    await expect(d.deps.registry.resolveProvider(outsider, ref, 'manage')).rejects.toMatchObject({ code: 'forbidden' });
    const owner = await principalOf(d, alice.token);
    const r = await d.deps.registry.resolveProvider(owner, ref, 'manage');
    expect(r).toMatchObject({
      box: { name: 'multi' },
      version: { version: '1.0.0' },
      provider: { name: 'virtualbox', blob_sha256: null },
    });
    await d.deps.registry.attachBlob(r.provider.id, { sha256: 'cd'.repeat(32), size: 42 });
    const json = (await alice.http.get(`${V1}/provider/virtualbox`)).json;
    expect(json).toMatchObject({ hosted: true, checksum: 'cd'.repeat(32), checksum_type: 'sha256' });
    expect([...(await d.deps.registry.referencedBlobDigests())]).toEqual(['cd'.repeat(32)]);
  });
});

describe('updating and deleting providers', () => {
  it('v2 update: moves the default, keeps null fields, validates the checksum pair', async () => {
    const r = await alice.http.put(`${V2}/provider/libvirt/amd64`, {
      provider: { default_architecture: true, url: null, checksum: null, checksum_type: null },
    });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ default_architecture: true, url: 'https://boxes.example/a.box', checksum: SHA256 });
    expect((await alice.http.get(`${V1}/provider/libvirt`)).json.architecture).toBe('amd64');
    const bad = await alice.http.put(`${V2}/provider/libvirt/amd64`, { provider: { checksum_type: 'md5' } });
    expect(bad.status).toBe(403);
    expect(bad.json.errors[0]).toMatch(/32 hexadecimal/);
    expect((await alice.http.get(`${V2}/provider/libvirt/amd64`)).json.checksum_type).toBe('sha256');
  });

  it('v1 update of a default entry, and clearing the default hands it to another entry', async () => {
    const r = await alice.http.put(`${V1}/provider/libvirt`, {
      provider: { name: 'libvirt', url: 'https://boxes.example/a2.box', default_architecture: false },
    });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      architecture: 'amd64',
      url: 'https://boxes.example/a2.box',
      default_architecture: false,
    });
    const libvirt = (await rows()).filter((x) => x.name === 'libvirt');
    expect(libvirt.filter((x) => x.default_architecture === 1)).toHaveLength(1);
  });

  it('deleting the default promotes the oldest remaining entry', async () => {
    const def = (await alice.http.get(`${V1}/provider/libvirt`)).json.architecture;
    const r = await alice.http.delete(`${V2}/provider/libvirt/${def}`);
    expect(r.status).toBe(200);
    expect(r.json.architecture).toBe(def);
    const libvirt = (await rows()).filter((x) => x.name === 'libvirt');
    expect(libvirt).toHaveLength(2);
    expect(libvirt.filter((x) => x.default_architecture === 1)).toHaveLength(1);
    expect((await alice.http.get(`${V1}/provider/libvirt`)).status).toBe(200);
  });

  it('refuses outsiders (403) and anonymous callers (401) and changes nothing', async () => {
    const before = await snapshot(d);
    expect((await carol.http.delete(`${V2}/provider/libvirt/arm64`)).status).toBe(403);
    expect(
      (await d.http.put(`${V2}/provider/libvirt/arm64`, { provider: { url: 'https://evil.example/x.box' } })).status,
    ).toBe(401);
    expect(await snapshot(d)).toEqual(before);
  });
});
