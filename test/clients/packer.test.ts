import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gemClient, packerClient, pickProvider, type Packer, boxBytes, sha256 } from '../helpers/clients';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import { rawGet } from '../helpers/upload';

/**
 * Replay of the request sequence of Packer's `vagrant-cloud` post-processor, which talks API v2 and
 * cannot be installed here, as read in its source (hashicorp/packer-plugin-vagrant,
 * post-processor/vagrant-cloud/: client.go, post-processor.go, step_verify_box.go,
 * step_create_version.go, step_create_provider.go, step_prepare_upload.go, step_upload.go,
 * step_confirm_upload.go, step_release_version.go).
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
/** The box must exist before Packer runs (it never creates boxes). */
async function makeBox(name: string) {
  const r = await gemClient(d.url, token).post('/boxes', { username: 'acme', name, is_private: false });
  expect(r.status, r.text).toBe(200);
}

/** stepVerifyBox + stepCreateVersion + stepCreateProvider, with the exact bodies Packer sends. */
async function packerUpToProvider(p: Packer, tag: string, version: string, provider: Record<string, unknown>) {
  expect((await p.get('authenticate')).status).toBe(200); // ValidateAuthentication: exactly 200
  const box = await p.get(`box/${tag}`);
  expect(box.status).toBe(200);
  expect(box.json.tag).toBe(tag); // "Could not verify box" otherwise
  const existing = (box.json.versions as { version: string }[]).find((v) => v.version === version);
  if (!existing) {
    // Version{Version, Description `omitempty`} wrapped as {"version": …}; 200 or 201.
    const v = await p.post(`box/${tag}/versions`, { version: { version, description: 'built by packer' } });
    expect([200, 201], v.text).toContain(v.status);
    expect(v.json.version).toBe(version);
  }
  // Provider{…} with omitempty on everything but name: false/"" are left out, never null.
  const created = await p.post(`box/${tag}/version/${version}/providers`, { provider });
  return created;
}

describe('Packer vagrant-cloud post-processor (packer-plugin-vagrant) over /api/v2', () => {
  it('direct upload: prepare, PUT without auth, callback, release — each exactly 200', async () => {
    await makeBox('pk-direct');
    const p = packerClient(d.url, token);
    const file = boxBytes();
    const created = await packerUpToProvider(p, 'acme/pk-direct', '1.0.0', {
      name: 'virtualbox',
      checksum_type: 'sha256',
      checksum: sha256(file),
      architecture: 'amd64',
    });
    expect([200, 201], created.text).toContain(created.status);
    // stepPrepareUpload reads provider.Name and provider.Architecture back from this response.
    expect(created.json).toMatchObject({ name: 'virtualbox', architecture: 'amd64' });

    const prep = await p.get(
      `box/acme/pk-direct/version/1.0.0/provider/${created.json.name}/${created.json.architecture}/upload/direct`,
    );
    expect(prep.status).toBe(200);
    expect(prep.json.upload_path).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
    expect(prep.json.callback).toMatch(
      /\/api\/v2\/box\/acme\/pk-direct\/version\/1\.0\.0\/provider\/virtualbox\/amd64\/upload\/direct\/[^/]+$/,
    );

    expect((await p.directUpload(prep.json.upload_path, file)).status).toBe(200);
    expect((await p.callback(prep.json.callback)).status).toBe(200);
    expect((await p.put('box/acme/pk-direct/version/1.0.0/release')).status).toBe(200);

    const cat = await d.http.get('/api/v2/vagrant/acme/pk-direct', { headers: { 'user-agent': 'Vagrant/2.4.1' } });
    expect(cat.json.versions).toHaveLength(1);
    const [entry] = cat.json.versions[0].providers;
    expect(entry).toMatchObject({
      name: 'virtualbox',
      architecture: 'amd64',
      default_architecture: true,
      checksum: sha256(file),
      checksum_type: 'sha256',
    });
    const dl = await rawGet(entry.url);
    expect(dl.status).toBe(200);
    expect(sha256(dl.body)).toBe(sha256(file));
  });

  it('no_direct_upload: the box file PUT as application/json with Bearer is stored untouched, no callback', async () => {
    await makeBox('pk-plain');
    const p = packerClient(d.url, token);
    const file = boxBytes();
    const created = await packerUpToProvider(p, 'acme/pk-plain', '2.0.0', { name: 'libvirt', architecture: 'arm64' });
    expect([200, 201], created.text).toContain(created.status);

    const prep = await p.get('box/acme/pk-plain/version/2.0.0/provider/libvirt/arm64/upload');
    expect(prep.status).toBe(200);
    expect(typeof prep.json.upload_path).toBe('string');
    expect(prep.json.callback).toBeUndefined(); // stepConfirmUpload is skipped for this mode

    const put = await p.upload(prep.json.upload_path, file);
    expect(put.status, put.text).toBe(200);
    expect((await p.put('box/acme/pk-plain/version/2.0.0/release')).status).toBe(200);

    const cat = await d.http.get('/api/v2/vagrant/acme/pk-plain', { headers: { 'user-agent': 'Vagrant/2.4.1' } });
    const [entry] = cat.json.versions[0].providers;
    expect(entry).toMatchObject({
      name: 'libvirt',
      architecture: 'arm64',
      default_architecture: true,
      checksum: sha256(file),
    });
    expect(sha256((await rawGet(entry.url)).body)).toBe(sha256(file));
  });

  it('box_download_url: provider created with url and checksum, no upload steps, released', async () => {
    await makeBox('pk-url');
    const p = packerClient(d.url, token);
    const sum = 'c'.repeat(64);
    const created = await packerUpToProvider(p, 'acme/pk-url', '3.1.0', {
      name: 'vmware_desktop',
      url: 'https://mirror.example/pk-url-3.1.0.box',
      checksum_type: 'sha256',
      checksum: sum,
      architecture: 'amd64',
    });
    expect([200, 201], created.text).toContain(created.status);
    expect(created.json.url).toBe('https://mirror.example/pk-url-3.1.0.box');
    expect((await p.put('box/acme/pk-url/version/3.1.0/release')).status).toBe(200);
    const cat = await d.http.get('/api/v2/vagrant/acme/pk-url', { headers: { 'user-agent': 'Vagrant/2.4.1' } });
    expect(cat.json.versions[0].providers).toEqual([
      expect.objectContaining({
        name: 'vmware_desktop',
        url: 'https://mirror.example/pk-url-3.1.0.box',
        checksum: sum,
        checksum_type: 'sha256',
        architecture: 'amd64',
        default_architecture: true,
      }),
    ]);
  });

  it('version already exists: skips creation, adds another architecture; a second release is tolerated', async () => {
    await makeBox('pk-multi');
    const p = packerClient(d.url, token);
    const amd = boxBytes();
    const arm = boxBytes();
    const run = async (arch: string, file: Buffer, defaultArch: boolean) => {
      // post-processor.go: defaultArchitecture = (architecture == config.default_architecture); false is omitted.
      const created = await packerUpToProvider(p, 'acme/pk-multi', '1.0.0', {
        name: 'virtualbox',
        architecture: arch,
        ...(defaultArch ? { default_architecture: true } : {}),
      });
      expect([200, 201], created.text).toContain(created.status);
      const prep = await p.get(`box/acme/pk-multi/version/1.0.0/provider/virtualbox/${arch}/upload/direct`);
      expect(prep.status).toBe(200);
      expect((await p.directUpload(prep.json.upload_path, file)).status).toBe(200);
      expect((await p.callback(prep.json.callback)).status).toBe(200);
      return p.put('box/acme/pk-multi/version/1.0.0/release');
    };
    expect((await run('amd64', amd, false)).status).toBe(200);
    // Second build: the version is in GET /box's `versions`, so Packer skips POST …/versions.
    const versionsBefore = (await p.get('box/acme/pk-multi')).json.versions;
    expect(versionsBefore.map((v: { version: string }) => v.version)).toEqual(['1.0.0']);
    const again = await run('arm64', arm, true);
    // stepReleaseVersion: a non-200 whose errors mention "already been released" is not a failure.
    expect(again.status).not.toBe(200);
    expect(again.json.errors.join('. ')).toContain('already been released');

    const cat = await d.http.get('/api/v2/vagrant/acme/pk-multi', { headers: { 'user-agent': 'Vagrant/2.4.1' } });
    const providers = cat.json.versions[0].providers;
    expect(
      providers
        .map((x: { architecture: string; default_architecture: boolean }) => [x.architecture, x.default_architecture])
        .sort(),
    ).toEqual([
      ['amd64', false],
      ['arm64', true],
    ]);
  });

  it('provider already exists: Packer gets a decodable error, halts, and nothing changes', async () => {
    await makeBox('pk-dup');
    const p = packerClient(d.url, token);
    const file = boxBytes();
    const first = await packerUpToProvider(p, 'acme/pk-dup', '1.0.0', { name: 'virtualbox', architecture: 'amd64' });
    expect(first.status).toBe(200);
    const prep = await p.get('box/acme/pk-dup/version/1.0.0/provider/virtualbox/amd64/upload');
    expect((await p.upload(prep.json.upload_path, file)).status).toBe(200);

    const dup = await packerUpToProvider(p, 'acme/pk-dup', '1.0.0', { name: 'virtualbox', architecture: 'amd64' });
    expect([200, 201]).not.toContain(dup.status);
    // VagrantCloudErrors{Errors []interface{}}: strings are joined into the message shown.
    expect(dup.json.errors).toEqual([expect.stringContaining('virtualbox')]);
    // Cleanup: s.name was never set, so no DELETE; the stored file is still there.
    const got = await p.get('box/acme/pk-dup/version/1.0.0/provider/virtualbox/amd64');
    expect(got.json.checksum).toBe(sha256(file));
  });

  it('cleanup after a failed upload deletes only what this run created (DELETE …/provider/NAME without architecture)', async () => {
    await makeBox('pk-clean');
    const p = packerClient(d.url, token);
    const amd = boxBytes();
    const first = await packerUpToProvider(p, 'acme/pk-clean', '1.0.0', { name: 'virtualbox', architecture: 'amd64' });
    expect(first.status).toBe(200);
    const prep = await p.get('box/acme/pk-clean/version/1.0.0/provider/virtualbox/amd64/upload');
    expect((await p.upload(prep.json.upload_path, amd)).status).toBe(200);
    expect((await p.put('box/acme/pk-clean/version/1.0.0/release')).status).toBe(200);

    // An arm64 build whose upload fails: the declared checksum does not match the file.
    const wrong = await packerUpToProvider(p, 'acme/pk-clean', '1.0.0', {
      name: 'virtualbox',
      architecture: 'arm64',
      checksum_type: 'sha256',
      checksum: 'a'.repeat(64),
    });
    expect(wrong.status).toBe(200);
    const prep2 = await p.get('box/acme/pk-clean/version/1.0.0/provider/virtualbox/arm64/upload/direct');
    expect((await p.directUpload(prep2.json.upload_path, boxBytes())).status).not.toBe(200);
    // stepCreateProvider.Cleanup on halt: DELETE box/TAG/version/V/provider/NAME — no architecture,
    // response ignored. With two architectures of that name the path is ambiguous: refused, no change.
    const del = await p.delete('box/acme/pk-clean/version/1.0.0/provider/virtualbox');
    expect(del.status).toBe(422);
    expect(del.json.errors[0]).toContain('several architectures');
    expect((await p.get('box/acme/pk-clean/version/1.0.0')).json.providers).toHaveLength(2);

    // The released amd64 image must survive.
    const cat = await d.http.get('/api/v2/vagrant/acme/pk-clean', { headers: { 'user-agent': 'Vagrant/2.4.1' } });
    const entry = pickProvider(cat.json.versions[0].providers, 'virtualbox', 'amd64');
    expect(entry?.architecture).toBe('amd64');
    expect(sha256((await rawGet((entry as unknown as { url: string }).url)).body)).toBe(sha256(amd));
  });
  it('cleanup of a build that created the only entry of its name deletes it', async () => {
    await makeBox('pk-clean1');
    const p = packerClient(d.url, token);
    const created = await packerUpToProvider(p, 'acme/pk-clean1', '1.0.0', {
      name: 'virtualbox',
      architecture: 'amd64',
      checksum_type: 'sha256',
      checksum: 'b'.repeat(64),
    });
    expect(created.status).toBe(200);
    const prep = await p.get('box/acme/pk-clean1/version/1.0.0/provider/virtualbox/amd64/upload/direct');
    const put = await p.directUpload(prep.json.upload_path, boxBytes());
    expect(put.status).not.toBe(200); // checksum mismatch: stepUpload retries, then halts
    expect((await p.delete('box/acme/pk-clean1/version/1.0.0/provider/virtualbox')).status).toBe(200);
    expect((await p.get('box/acme/pk-clean1/version/1.0.0')).json.providers).toEqual([]);
  });
});
