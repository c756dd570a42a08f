import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient } from '../helpers/http';
import { replayPackerRegistry } from '../helpers/hcp-registry';

/*
 * HCP's registry API as Packer's vagrant-registry post-processor calls it, replayed with its exact bodies over
 * `--tls auto` (the test's client trusts only the daemon's CA): the boxes it makes are the Vagrant Cloud API's own,
 * shown by the catalog vagrant reads and downloaded from it.
 */
const LIMIT = 64 * 1024;
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const API = '/vagrant/2022-09-30/registry';
const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;

let d: TestDaemon;
let alice: HttpClient;

beforeAll(async () => {
  d = await startTestDaemon({ config: { tls: 'auto', directUploadLimitBytes: LIMIT } });
  alice = (await d.user('alice', { orgs: ['acme'] })).http;
  expect(d.url).toMatch(/^https:\/\//);
});
afterAll(() => d?.stop());

/** The file the catalog's URL serves, fetched as vagrant does (anonymously: the boxes here are public). */
async function catalogFile(box: string, version: string, provider: string, arch: string): Promise<Buffer> {
  const cat = await d.http.get(`/acme/${box}`);
  expect(cat.status, cat.text).toBe(200);
  const v = (cat.json.versions as Array<{ version: string; providers: Array<Record<string, string>> }>).find(
    (x) => x.version === version,
  );
  const p = v?.providers.find((x) => x.name === provider && x.architecture === arch);
  expect(p, cat.text).toBeDefined();
  const res = await d.http.send(p?.url as string);
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

describe("Packer's vagrant-registry sequence", () => {
  it('creates a box, waits for its operation, uploads directly and releases: every call exactly 200', async () => {
    const file = randomBytes(20_000);
    const calls = await replayPackerRegistry(alice, {
      registry: 'acme',
      box: 'web',
      version: '1.0.0',
      provider: 'virtualbox',
      architecture: 'amd64',
      defaultArchitecture: 'amd64',
      boxDescription: 'A web server',
      checksum: `sha256:${sha256(file)}`,
      file,
      directLimit: LIMIT,
    });
    const box = `${API}/acme/box/web`;
    const arch = `${box}/version/1.0.0/provider/virtualbox/architecture/amd64`;
    expect(calls).toEqual([
      `GET ${box}`,
      `POST ${API}/acme/boxes`,
      expect.stringMatching(
        /^GET \/operation\/2020-05-05\/organizations\/[^/]+\/projects\/[^/]+\/operations\/[^/]+\/wait/,
      ),
      `GET ${box}/version/1.0.0`,
      `POST ${box}/versions`,
      `GET ${box}/version/1.0.0/provider/virtualbox`,
      `POST ${box}/version/1.0.0/providers`,
      `GET ${arch}`,
      `POST ${box}/version/1.0.0/provider/virtualbox/architectures`,
      `GET ${arch}/direct/upload`,
      'PUT /vagrant/2022-09-30/uploads/:secret',
      expect.stringMatching(new RegExp(`^PUT ${arch}/direct/complete/`)),
      `PUT ${box}/version/1.0.0/release`,
    ]);
    // The Vagrant Cloud API's box: public (is_private was left out), released, one entry per architecture.
    const v2 = await d.http.get('/api/v2/box/acme/web');
    expect(v2.json).toMatchObject({ private: false, description: 'A web server' });
    expect(v2.json.versions).toMatchObject([
      { version: '1.0.0', status: 'active', providers: [{ name: 'virtualbox', architecture: 'amd64' }] },
    ]);
    expect(v2.json.versions[0].providers).toHaveLength(1);
    expect(await catalogFile('web', '1.0.0', 'virtualbox', 'amd64')).toEqual(file);
  });

  it('adds a version to a box that exists, with the checksum type in capitals, without creating the box', async () => {
    const file = randomBytes(30_000);
    const calls = await replayPackerRegistry(alice, {
      registry: 'acme',
      box: 'web',
      version: '1.1.0',
      provider: 'virtualbox',
      architecture: 'arm64',
      checksum: `SHA256:${sha256(file).toUpperCase()}`,
      file,
      directLimit: LIMIT,
    });
    expect(calls[0]).toBe(`GET ${API}/acme/box/web`);
    expect(calls[1]).toBe(`GET ${API}/acme/box/web/version/1.1.0`);
    expect(calls.some((c) => c.includes('/boxes') || c.includes('/operation/'))).toBe(false);
    expect(await catalogFile('web', '1.1.0', 'virtualbox', 'arm64')).toEqual(file);
  });

  it('sends a file above the direct limit through the plain upload, with no completion call', async () => {
    const file = randomBytes(LIMIT + 1000);
    const calls = await replayPackerRegistry(alice, {
      registry: 'acme',
      box: 'big',
      version: '1.0.0',
      provider: 'libvirt',
      architecture: 'amd64',
      file,
      directLimit: LIMIT,
    });
    const arch = `${API}/acme/box/big/version/1.0.0/provider/libvirt/architecture/amd64`;
    expect(calls).toContain(`GET ${arch}/upload`);
    expect(calls.some((c) => c.includes('/direct/'))).toBe(false);
    expect(await catalogFile('big', '1.0.0', 'libvirt', 'amd64')).toEqual(file);
  });

  it('records download_url and uploads nothing', async () => {
    const url = 'https://downloads.example/boxes/ext-1.0.0.box';
    const sum = 'a'.repeat(64);
    const calls = await replayPackerRegistry(alice, {
      registry: 'acme',
      box: 'ext',
      version: '1.0.0',
      provider: 'virtualbox',
      architecture: 'amd64',
      checksum: `sha256:${sum}`,
      downloadUrl: url,
    });
    expect(calls.some((c) => c.includes('upload'))).toBe(false);
    const cat = await d.http.get('/acme/ext');
    expect(cat.json.versions[0].providers[0]).toMatchObject({ url, checksum: sum, checksum_type: 'sha256' });
  });

  it('updates an architecture that exists (PUT) and skips the release of a version already released', async () => {
    const file = randomBytes(10_000);
    const calls = await replayPackerRegistry(alice, {
      registry: 'acme',
      box: 'web',
      version: '1.0.0',
      provider: 'virtualbox',
      architecture: 'amd64',
      file,
      directLimit: LIMIT,
    });
    expect(calls).toContain(`PUT ${API}/acme/box/web/version/1.0.0/provider/virtualbox/architecture/amd64`);
    expect(calls.some((c) => c.endsWith('/release'))).toBe(false);
    expect(await catalogFile('web', '1.0.0', 'virtualbox', 'amd64')).toEqual(file);
  });
});

describe("HCP's models", () => {
  it('answers int64 fields as strings, times in RFC 3339 and states in capitals', async () => {
    const r = await alice.get(`${API}/acme/box/web`);
    expect(r.status).toBe(200);
    const box = r.json.box;
    expect(box).toMatchObject({ name: 'web', is_private: false, state: 'AVAILABLE', downloads: expect.any(String) });
    expect(box.summary).toMatchObject({ versions_count: '2', provider_names: ['virtualbox'] });
    expect(box.created_at).toMatch(RFC3339);
    const v = box.versions.find((x: { name: string }) => x.name === '1.0.0');
    expect(v).toMatchObject({ state: 'ACTIVE', summary: { providers_count: '1' } });
    const a = (await alice.get(`${API}/acme/box/web/version/1.1.0/provider/virtualbox/architecture/arm64`)).json;
    expect(a.architecture).toMatchObject({
      architecture_type: 'arm64',
      box_data: { checksum_type: 'SHA256', size: '30000', download_url: expect.stringContaining('/acme/boxes/web/') },
    });
    expect(a.architecture.box_data.updated_at).toMatch(RFC3339);
    const p = (await alice.get(`${API}/acme/box/web/version/1.1.0/provider/virtualbox`)).json;
    expect(p.provider.summary).toEqual({ architectures_count: '1', architecture_types: ['arm64'] });
  });
});
