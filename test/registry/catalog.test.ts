import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { principalOf, startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient } from '../helpers/http';
import { createBox } from '../helpers/registry';
import { withHost } from '../helpers/with-host';

let d: TestDaemon;
let alice: { token: string; http: HttpClient };
const API = '/api/v2/box/alice/cat';
const SHA1 = '1'.repeat(40);
const BLOB = 'e'.repeat(64);
const NEW = { headers: { 'user-agent': 'Vagrant/2.4.1 (+https://www.vagrantup.com; ruby3.1.2)' } };
const OLD = { headers: { 'user-agent': 'Vagrant/2.3.4 (+https://www.vagrantup.com; ruby3.1.2)' } };

async function provider(version: string, body: Record<string, unknown>) {
  const r = await alice.http.post(`${API}/version/${version}/providers`, { provider: body });
  expect(r.status, r.text).toBe(200);
  return r.json;
}

beforeAll(async () => {
  d = await startTestDaemon();
  alice = await d.user('alice');
  await createBox(alice.http, 'alice', 'cat', { short: 'A cat box' });
  for (const v of ['0.9.0', '1.0.0', '2.0.0']) await alice.http.post(`${API}/versions`, { version: { version: v } });
  await provider('0.9.0', { name: 'virtualbox', url: 'https://boxes.example/old.box' });
  await provider('1.0.0', {
    name: 'virtualbox',
    architecture: 'amd64',
    url: 'https://boxes.example/amd64.box',
    checksum: SHA1,
    checksum_type: 'sha1',
  });
  await provider('1.0.0', {
    name: 'virtualbox',
    architecture: 'arm64',
    url: null,
    checksum: SHA1,
    checksum_type: 'sha1',
  });
  await provider('1.0.0', { name: 'libvirt', architecture: 'amd64', url: 'https://boxes.example/libvirt.box' });
  await provider('1.0.0', { name: 'vmware_desktop', architecture: 'amd64', url: null });
  const owner = await principalOf(d, alice.token);
  const { provider: arm } = await d.deps.registry.resolveProvider(
    owner,
    { username: 'alice', box: 'cat', version: '1.0.0', provider: 'virtualbox', architecture: 'arm64' },
    'manage',
  );
  await d.deps.registry.attachBlob(arm.id, { sha256: BLOB, size: 123 });
  for (const v of ['0.9.0', '1.0.0']) expect((await alice.http.put(`${API}/version/${v}/release`)).status).toBe(200);
  expect((await alice.http.put(`${API}/version/0.9.0/revoke`)).status).toBe(200);
  await provider('2.0.0', { name: 'virtualbox', url: 'https://boxes.example/next.box' });
});
afterAll(() => d.stop());

describe('the vagrant catalog', () => {
  it('serves vagrant ≥ 2.4 every architecture of released versions only', async () => {
    const r = await d.http.get('/alice/cat', NEW);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.json.name).toBe('alice/cat');
    expect(r.json.versions.map((v: { version: string }) => v.version)).toEqual(['1.0.0']);
    const [v] = r.json.versions;
    expect(v.status).toBe('active');
    expect(v.providers).toEqual(
      expect.arrayContaining([
        {
          name: 'virtualbox',
          architecture: 'amd64',
          default_architecture: true,
          url: 'https://boxes.example/amd64.box',
          checksum: SHA1,
          checksum_type: 'sha1',
        },
        {
          name: 'virtualbox',
          architecture: 'arm64',
          default_architecture: false,
          checksum: BLOB,
          checksum_type: 'sha256',
          url: `${d.url}/alice/boxes/cat/versions/1.0.0/providers/virtualbox/arm64/vagrant.box`,
        },
        {
          name: 'libvirt',
          architecture: 'amd64',
          default_architecture: true,
          url: 'https://boxes.example/libvirt.box',
        },
      ]),
    );
    // vmware_desktop has no image yet: left out.
    expect(v.providers).toHaveLength(3);
  });

  it('serves vagrant ≤ 2.3 one entry per provider name: the default architecture', async () => {
    const r = await d.http.get('/alice/cat', OLD);
    expect(r.status).toBe(200);
    const [v] = r.json.versions;
    expect(v.providers).toEqual([
      { name: 'libvirt', url: 'https://boxes.example/libvirt.box' },
      { name: 'virtualbox', url: 'https://boxes.example/amd64.box', checksum: SHA1, checksum_type: 'sha1' },
    ]);
  });

  it('is also served at /api/v2/vagrant/ORG/BOX and echoes the requested name', async () => {
    const r = await d.http.get('/api/v2/vagrant/ALICE/Cat', NEW);
    expect(r.status).toBe(200);
    expect(r.json.name).toBe('ALICE/Cat');
    expect(r.json.versions[0].providers).toHaveLength(3);
  });

  it('answers HEAD with a JSON content type and no body', async () => {
    for (const path of ['/alice/cat', '/api/v2/vagrant/alice/cat']) {
      const r = await d.http.head(path, OLD);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toMatch(/^application\/json/);
      expect(r.text).toBe('');
    }
  });

  it('answers 404 in JSON for unknown boxes and names, GET and HEAD', async () => {
    const r = await d.http.get('/alice/nope');
    expect(r.status).toBe(404);
    expect(r.json).toEqual({ errors: [expect.stringContaining('not found')], success: false, code: 'not_found' });
    expect((await d.http.get('/nobody/cat')).status).toBe(404);
    const h = await d.http.head('/alice/nope');
    expect(h.status).toBe(404);
    expect(h.headers.get('content-type')).toMatch(/^application\/json/);
  });
});

describe('a private box in the catalog', () => {
  beforeAll(async () => {
    expect((await alice.http.put('/api/v1/box/alice/cat', { box: { is_private: true } })).json.private).toBe(true);
  });

  it('is 404 for anonymous callers and bad tokens', async () => {
    expect((await d.http.get('/alice/cat')).status).toBe(404);
    expect((await d.http.head('/api/v2/vagrant/alice/cat')).status).toBe(404);
    expect((await d.http.get('/alice/cat?access_token=wrong')).status).toBe(404);
  });

  it('is served with Bearer, X-Atlas-Token or ?access_token=', async () => {
    expect((await d.http.get('/alice/cat', { headers: { authorization: `Bearer ${alice.token}` } })).json.name).toBe(
      'alice/cat',
    );
    expect((await d.http.get('/alice/cat', { headers: { 'x-atlas-token': alice.token } })).json.name).toBe('alice/cat');
    const q = await d.http.get(`/api/v2/vagrant/alice/cat?access_token=${encodeURIComponent(alice.token)}`);
    expect(q.status).toBe(200);
    expect(q.json.versions).toHaveLength(1);
  });
});

describe('links with a configured public URL', () => {
  let lan: TestDaemon;
  beforeAll(async () => {
    lan = await startTestDaemon({ config: { publicUrl: 'http://boxes.lan:8080' } });
  });
  afterAll(() => lan.stop());

  it('builds release, revoke and hosted download links from it', async () => {
    const bob = await lan.user('bob');
    await createBox(bob.http, 'bob', 'lan');
    const v = await bob.http.post('/api/v2/box/bob/lan/versions', { version: { version: '1.0.0' } });
    expect(v.json.release_url).toBe('http://boxes.lan:8080/api/v2/box/bob/lan/version/1.0.0/release');
    const p = await bob.http.post('/api/v2/box/bob/lan/version/1.0.0/providers', {
      provider: { name: 'virtualbox', architecture: 'arm64' },
    });
    expect(p.json.download_url).toBe(
      'http://boxes.lan:8080/bob/boxes/lan/versions/1.0.0/providers/virtualbox/arm64/vagrant.box',
    );
  });
});

describe('the catalog kept as bytes', () => {
  it('follows the base URL of each request, the agent, the name asked and a release', async () => {
    const hosted = (r: { json?: { versions: Array<{ providers: Array<{ architecture?: string; url: string }> }> } }) =>
      r.json?.versions[0].providers.find((p) => p.architecture === 'arm64')?.url;
    // Private since the tests above: asked with the owner's token.
    const as = (agent: { headers: Record<string, string> }) => ({
      headers: { ...agent.headers, authorization: `Bearer ${alice.token}` },
    });
    const here = await d.http.get('/alice/cat', as(NEW));
    expect(hosted(here)).toMatch(new RegExp(`^${d.url}/`));
    const port = new URL(d.url).port;
    const named = await withHost(d.url, `localhost:${port}`, { path: '/alice/cat', headers: as(NEW).headers });
    expect(named.status).toBe(200);
    expect(hosted(named)).toMatch(new RegExp(`^http://localhost:${port}/`));
    expect((await d.http.get('/alice/cat', as(NEW))).text).toBe(here.text);
    expect((await d.http.get('/Alice/cat', as(NEW))).json.name).toBe('Alice/cat');
    expect((await d.http.get('/alice/cat', as(OLD))).json.versions[0].providers).toHaveLength(2);
    expect((await alice.http.put(`${API}/version/2.0.0/release`)).status).toBe(200);
    const released = await d.http.get('/alice/cat', as(NEW));
    expect(released.json.versions.map((v: { version: string }) => v.version)).toEqual(['2.0.0', '1.0.0']);
  });
});
