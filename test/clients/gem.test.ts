import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOX_KEYS, GEM_OK, gemClient, pickProvider, type Gem, boxBytes, sha256 } from '../helpers/clients';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import { rawGet, rawPut } from '../helpers/upload';

/**
 * Replay of the requests of the vagrant_cloud gem ≥ 3.1 as driven by vagrant ≥ 2.4, which talk API
 * v2 and cannot be installed here (hashicorp/vagrant_cloud lib/vagrant_cloud/client.rb at 3.1, with
 * architectures; box.rb, box/version.rb, box/provider.rb, organization.rb, data.rb only in their
 * 3.0 revisions; hashicorp/vagrant plugins/commands/cloud/publish.rb).
 */

let d: TestDaemon;
let token: string;

beforeAll(async () => {
  d = await startTestDaemon();
  ({ token } = await d.user('builder', { orgs: ['acme'] }));
});
afterAll(async () => {
  await d?.stop();
});
describe('vagrant_cloud gem ≥ 3.1 (vagrant ≥ 2.4) over /api/v2', () => {
  let gem: Gem;
  const amd = boxBytes();
  const arm = boxBytes();
  beforeAll(() => {
    gem = gemClient(d.url, token);
  });

  /** Provider#upload with a block (vagrant publish): upload, then PUT the callback's path only. */
  async function directUpload(path: string, file: Buffer, framing: 'curl' | 'chunked') {
    const prep = await gem.get(`${path}/upload/direct`);
    expect(GEM_OK).toContain(prep.status);
    expect(prep.json.callback).toContain('/api/v2/');
    const put =
      framing === 'curl'
        ? // Vagrant::Util::Uploader: curl PUT with Content-Length and Expect: 100-continue, no auth.
          await rawPut(prep.json.upload_path, file, { 'content-length': String(file.length), expect: '100-continue' })
        : // The gem as a library: Excon.put with a request_block, i.e. chunked, no headers.
          await rawPut(prep.json.upload_path, Readable.from([file.subarray(0, 1000), file.subarray(1000)]), {
            'transfer-encoding': 'chunked',
          });
    expect(put.status, put.text).toBe(200);
    // client.request(method: :put, path: URI.parse(callback).path): query dropped, Bearer, no body.
    const cb = await gem.put(new URL(prep.json.callback).pathname);
    expect(GEM_OK, cb.text).toContain(cb.status);
  }

  it('publish: box (flat and wrapped), version, providers with architectures, direct uploads, release', async () => {
    expect(GEM_OK).toContain((await gem.get('/authenticate')).status);
    // Account#organization → GET /user/ORG; boxes are found only there.
    const org = await gem.get('/user/acme');
    expect(org.status).toBe(200);
    expect(org.json.boxes.every((b: object) => !('versions' in b))).toBe(true);

    // client.rb box_create (gem 3.1): POST /boxes with a flat body; nils the model holds go as null.
    const flat = await gem.post('/boxes', {
      username: 'acme',
      name: 'gem-box',
      short_description: 'multi-arch',
      description: null,
      is_private: false,
    });
    expect(flat.status, flat.text).toBe(200);
    expect(flat.json.created_at).toBeTruthy(); // Box#exist? is !!created_at
    expect(Object.keys(flat.json).every((k) => BOX_KEYS.includes(k))).toBe(true);
    // The documented wrapped form.
    const wrapped = await gem.post('/boxes', { box: { username: 'acme', name: 'gem-box-wrapped', is_private: true } });
    expect(wrapped.status, wrapped.text).toBe(200);
    expect(wrapped.json).toMatchObject({ tag: 'acme/gem-box-wrapped', private: true });

    // Box#versions_on_demand → GET /box; then Version#save → POST …/versions.
    expect((await gem.get('/box/acme/gem-box')).json.versions).toEqual([]);
    const v = await gem.post('/box/acme/gem-box/versions', { version: { version: '1.0.0', description: 'first' } });
    expect(GEM_OK).toContain(v.status);
    expect(v.json.created_at).toBeTruthy();
    expect(v.json.status).toBe('unreleased');

    // box_version_provider_create with architecture → api_version 2, architecture + default_architecture.
    const pa = await gem.post('/box/acme/gem-box/version/1.0.0/providers', {
      provider: {
        name: 'virtualbox',
        url: null,
        checksum: null,
        checksum_type: null,
        architecture: 'amd64',
        default_architecture: true,
      },
    });
    expect(GEM_OK, pa.text).toContain(pa.status);
    expect(pa.json).toMatchObject({ name: 'virtualbox', architecture: 'amd64', default_architecture: true });
    expect(pa.json.created_at).toBeTruthy();
    const pb = await gem.post('/box/acme/gem-box/version/1.0.0/providers', {
      provider: {
        name: 'virtualbox',
        checksum: sha256(arm),
        checksum_type: 'sha256',
        architecture: 'arm64',
        default_architecture: false,
      },
    });
    expect(GEM_OK, pb.text).toContain(pb.status);
    expect(pb.json).toMatchObject({ architecture: 'arm64', default_architecture: false });

    await directUpload('/box/acme/gem-box/version/1.0.0/provider/virtualbox/amd64', amd, 'curl');
    await directUpload('/box/acme/gem-box/version/1.0.0/provider/virtualbox/arm64', arm, 'chunked');

    // vagrant publish finds its provider by name and architecture among GET /box's versions.
    const box = await gem.get('/box/acme/gem-box');
    const provs = box.json.versions[0].providers as { name: string; architecture: string; checksum: string }[];
    expect(provs.find((x) => x.architecture === 'arm64')?.checksum).toBe(sha256(arm));
    expect(provs.find((x) => x.architecture === 'amd64')?.checksum).toBe(sha256(amd));

    // Version#release reads only `status` from the answer.
    const rel = await gem.put('/box/acme/gem-box/version/1.0.0/release');
    expect(GEM_OK).toContain(rel.status);
    expect(rel.json.status).toBe('active');
  });

  it('catalog at /api/v2/vagrant/ORG/BOX for Vagrant/2.4.1: every architecture, one default, picked by host architecture', async () => {
    const cat = await d.http.get('/api/v2/vagrant/acme/gem-box', {
      headers: { 'user-agent': 'Vagrant/2.4.1 (+https://www.vagrantup.com; ruby3.1.4)' },
    });
    expect(cat.status).toBe(200);
    expect(cat.headers.get('content-type')).toMatch(/^application\/json/);
    expect(cat.json.name).toBe('acme/gem-box');
    const providers = cat.json.versions[0].providers;
    expect(providers).toHaveLength(2);
    for (const p of providers) expect(p).toMatchObject({ name: 'virtualbox', checksum_type: 'sha256' });
    expect(providers.filter((p: { default_architecture: boolean }) => p.default_architecture)).toHaveLength(1);

    for (const [host, want] of [
      ['arm64', arm],
      ['amd64', amd],
      ['s390x', amd],
    ] as const) {
      const entry = pickProvider(providers, 'virtualbox', host) as unknown as { url: string; checksum: string };
      expect(entry.checksum).toBe(sha256(want));
      const dl = await rawGet(entry.url);
      expect(dl.status).toBe(200);
      expect(sha256(dl.body)).toBe(sha256(want));
    }
    // vagrant ≤ 2.3 keeps the last entry of a name: it gets the default one only.
    const legacy = await d.http.get('/acme/gem-box', { headers: { 'user-agent': 'Vagrant/2.3.4' } });
    expect(legacy.json.versions[0].providers).toEqual([expect.objectContaining({ checksum: sha256(amd) })]);
    expect(legacy.json.versions[0].providers[0].architecture).toBeUndefined();
  });

  it('box_update and box_version_update send nulls for what they leave unchanged', async () => {
    // box_update: flat {short_description, description, is_private}; the model's unset nils are null.
    const b = await gem.put('/box/acme/gem-box', {
      short_description: null,
      description: 'Longer text',
      is_private: null,
    });
    expect(GEM_OK, b.text).toContain(b.status);
    expect(b.json).toMatchObject({ short_description: 'multi-arch', description: 'Longer text', private: false });
    const v = await gem.put('/box/acme/gem-box/version/1.0.0', { version: { version: '1.0.0', description: 'notes' } });
    expect(GEM_OK, v.text).toContain(v.status);
    expect(v.json).toMatchObject({ version: '1.0.0', description: 'notes', status: 'active' });
  });

  it('provider update by architecture moves the default flag', async () => {
    // box_version_provider_update(architecture: "arm64", default_architecture: true); new_architecture unset → omitted.
    const r = await gem.put('/box/acme/gem-box/version/1.0.0/provider/virtualbox/arm64', {
      provider: { name: 'virtualbox', url: null, checksum: null, checksum_type: null, default_architecture: true },
    });
    expect(GEM_OK, r.text).toContain(r.status);
    expect(r.json).toMatchObject({ architecture: 'arm64', default_architecture: true, checksum: sha256(arm) });
    const got = await gem.get('/box/acme/gem-box/version/1.0.0/provider/virtualbox/amd64');
    expect(got.json.default_architecture).toBe(false);
    const cat = await d.http.get('/api/v2/vagrant/acme/gem-box', { headers: { 'user-agent': 'Vagrant/2.4.1' } });
    expect(pickProvider(cat.json.versions[0].providers, 'virtualbox', 's390x')?.architecture).toBe('arm64');
  });

  it('search via v2 with architecture and provider filters answers only keys the gem knows', async () => {
    const r = await gem.get(
      '/search?q=gem-box&architecture=arm64&provider=virtualbox&sort=downloads&order=desc&limit=10&page=1',
    );
    expect(r.status).toBe(200);
    expect(Object.keys(r.json)).toEqual(['boxes']);
    expect(r.json.boxes.map((b: { tag: string }) => b.tag)).toEqual(['acme/gem-box']);
    const [hit] = r.json.boxes;
    expect(Object.keys(hit).every((k) => BOX_KEYS.includes(k))).toBe(true);
    expect(hit.current_version).toMatchObject({ version: '1.0.0', status: 'active' });
    expect(hit.current_version.providers.map((p: { architecture: string }) => p.architecture).sort()).toEqual([
      'amd64',
      'arm64',
    ]);
    const none = await gem.get('/search?q=gem-box&architecture=s390x');
    expect(none.json.boxes).toEqual([]);
  });

  it('revoke, provider delete by architecture, version delete, box delete', async () => {
    const rv = await gem.put('/box/acme/gem-box/version/1.0.0/revoke');
    expect(GEM_OK).toContain(rv.status);
    expect(rv.json.status).toBe('revoked');
    const cat = await d.http.get('/api/v2/vagrant/acme/gem-box', { headers: { 'user-agent': 'Vagrant/2.4.1' } });
    expect(cat.json.versions).toEqual([]);

    // box_version_provider_delete(architecture:) → DELETE …/provider/NAME/ARCH (JSON type, empty body).
    const del = await gem.delete('/box/acme/gem-box/version/1.0.0/provider/virtualbox/arm64');
    expect(GEM_OK, del.text).toContain(del.status);
    const left = await gem.get('/box/acme/gem-box/version/1.0.0');
    expect(left.json.providers).toEqual([
      expect.objectContaining({ architecture: 'amd64', default_architecture: true }),
    ]);

    expect(GEM_OK).toContain((await gem.delete('/box/acme/gem-box/version/1.0.0')).status);
    expect(GEM_OK).toContain((await gem.delete('/box/acme/gem-box')).status);
    expect((await gem.get('/box/acme/gem-box')).status).toBe(404);
    expect((await d.http.get('/api/v2/vagrant/acme/gem-box')).status).toBe(404);
  });
});
