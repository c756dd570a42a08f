import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ParsedJson } from './http';
import { startHcpUpstream, type HcpBox, type HcpUpstream } from './hcp-upstream';
import { sha256 } from './mirror';

/** The fake HCP Vagrant registry the mirroring tests run against behaves as the real one does. */
describe('the HCP Vagrant upstream fixture', () => {
  const TOKEN = 'hcp-test-token';
  const file = randomBytes(50_000);
  const arm = randomBytes(20_000);
  let hcp: HcpUpstream;

  const box = (name: string, extra: Partial<HcpBox> = {}): HcpBox => ({
    org: 'acme',
    name,
    private: false,
    short_description: `${name} in one line`,
    description: `# ${name}\n\nA <b>box</b>.`,
    versions: [
      {
        version: '1.9.0',
        status: 'active',
        description: 'old',
        providers: [{ name: 'virtualbox', architecture: 'amd64', default_architecture: true, file }],
      },
      {
        version: '1.10.0',
        status: 'active',
        description: 'new',
        providers: [
          { name: 'virtualbox', architecture: 'amd64', default_architecture: true, file },
          { name: 'virtualbox', architecture: 'arm64', file: arm, checksum_type: 'sha512' },
        ],
      },
      {
        version: '2.0.0',
        status: 'unreleased',
        description: 'next',
        providers: [{ name: 'virtualbox', architecture: 'amd64', file }],
      },
      {
        version: '0.9.0',
        status: 'revoked',
        description: 'bad',
        providers: [{ name: 'virtualbox', architecture: 'amd64', file }],
      },
    ],
    ...extra,
  });

  beforeAll(async () => {
    hcp = await startHcpUpstream({
      token: TOKEN,
      boxes: [box('base'), box('secret', { private: true }), box('hidden', { hiddenFromToken: true })],
    });
  });
  afterAll(async () => {
    await hcp?.stop();
  });

  const get = (path: string, token?: string, headers: Record<string, string> = {}) =>
    fetch(path.startsWith('http') ? path : hcp.url + path, {
      redirect: 'manual',
      headers: {
        accept: 'application/json',
        ...headers,
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      },
    });

  const getJson = async (path: string, token?: string): Promise<ParsedJson> => (await get(path, token)).json();

  it('listens on loopback only: the registry on 127.0.0.1, the storage on 127.0.0.2', () => {
    expect(hcp.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(hcp.storageUrl).toMatch(/^http:\/\/127\.0\.0\.2:\d+$/);
    expect(hcp.storageUrl).not.toBe(hcp.url);
  });

  it('shows anonymous callers released versions only, token holders every version, newest first', async () => {
    const anon = await getJson('/api/v2/box/acme/base');
    expect(anon.tag).toBe('acme/base');
    expect(anon).not.toHaveProperty('description');
    expect(anon.description_markdown).toBe('# base\n\nA <b>box</b>.');
    expect(anon.description_html).toBe('<p># base</p>\n<p>A &#60;b&#62;box&#60;/b&#62;.</p>');
    expect(anon.versions.map((v: { version: string }) => v.version)).toEqual(['1.10.0', '1.9.0']);
    expect(anon.current_version.version).toBe('1.10.0');
    const arm64 = anon.versions[0].providers[1];
    expect(arm64).toMatchObject({
      architecture: 'arm64',
      checksum_type: 'sha512',
      hosted: true,
      checksum: createHash('sha512').update(arm).digest('hex'),
    });
    expect(arm64.download_url).toBe(
      `${hcp.url}/acme/boxes/base/versions/1.10.0/providers/virtualbox/arm64/vagrant.box`,
    );

    for (const auth of [TOKEN, `other;${TOKEN}`, `${TOKEN};other`]) {
      const full = await getJson('/api/v1/box/acme/base', auth);
      expect(full.versions.map((v: { status: string }) => v.status)).toEqual([
        'unreleased',
        'active',
        'active',
        'revoked',
      ]);
    }
  });

  it('answers a wrong token 401 everywhere, and authenticate only to the token', async () => {
    for (const path of [
      '/api/v2/box/acme/base',
      '/api/v1/user/acme',
      '/api/v2/authenticate',
      '/acme/base',
      '/acme/boxes/base/versions/1.9.0/providers/virtualbox/amd64/vagrant.box',
    ]) {
      const r = await get(path, 'wrong');
      expect(r.status, path).toBe(401);
      expect(await r.json()).toEqual({ errors: ['Invalid authentication token'], success: false });
    }
    expect((await get('/api/v2/authenticate')).status).toBe(401);
    expect(await getJson('/api/v2/authenticate', TOKEN)).toEqual({ user: { username: 'hcp-user' } });
  });

  it('hides private boxes from anonymous callers (404) and hidden ones from everybody (403 with the token)', async () => {
    const notFound = { errors: ['Resource not found!'], success: false };
    expect((await get('/api/v2/box/acme/secret')).status).toBe(404);
    expect(await getJson('/api/v2/box/acme/secret')).toEqual(notFound);
    expect((await get('/api/v2/box/acme/secret', TOKEN)).status).toBe(200);
    expect((await get('/acme/secret')).status).toBe(404);
    expect((await get('/api/v2/box/acme/hidden')).status).toBe(404);
    const hidden = await get('/api/v2/box/acme/hidden', TOKEN);
    expect(hidden.status).toBe(403);
    expect(await hidden.json()).toEqual({ errors: ['You are not authorized to access this resource'], success: false });

    const names = async (token?: string) =>
      (await getJson('/api/v2/user/acme', token)).boxes.map((b: { name: string }) => b.name);
    expect(await names()).toEqual(['base']);
    expect(await names(TOKEN)).toEqual(['base', 'secret', 'hidden']);
    expect((await getJson('/api/v2/user/acme')).boxes[0]).not.toHaveProperty('versions');
    expect((await get('/api/v2/user/nobody')).status).toBe(404);
  });

  it('lists only released versions in the catalog, even to the token holder', async () => {
    const cat = await getJson('/acme/base', TOKEN);
    expect(cat.name).toBe('acme/base');
    expect(cat.description).toBe('base in one line');
    expect(cat.versions.map((v: { version: string; status: string }) => `${v.version} ${v.status}`)).toEqual([
      '1.10.0 active',
      '1.9.0 active',
    ]);
    expect(cat.versions[1].providers).toEqual([
      {
        name: 'virtualbox',
        url: `${hcp.url}/acme/boxes/base/versions/1.9.0/providers/virtualbox/amd64/vagrant.box`,
        checksum: sha256(file),
        checksum_type: 'sha256',
        architecture: 'amd64',
        default_architecture: true,
      },
    ]);
  });

  it('redirects a download to presigned storage, which refuses Authorization and serves ranges', async () => {
    const dl = '/acme/boxes/base/versions/1.9.0/providers/virtualbox/amd64/vagrant.box';
    const r = await get(dl);
    expect(r.status).toBe(302);
    const location = r.headers.get('location') ?? '';
    expect(location).toMatch(
      new RegExp(`^${hcp.storageUrl}/blobs/${sha256(file)}\\?X-Amz-Signature=[0-9a-f]+&X-Amz-Expires=300$`),
    );
    expect((await get('/acme/boxes/base/versions/2.0.0/providers/virtualbox/amd64/vagrant.box')).status).toBe(404);
    expect((await get('/acme/boxes/base/versions/2.0.0/providers/virtualbox/amd64/vagrant.box', TOKEN)).status).toBe(
      302,
    );

    const whole = await get(location, undefined, { accept: '*/*' });
    expect(whole.status).toBe(200);
    expect(whole.headers.get('accept-ranges')).toBe('bytes');
    expect(Buffer.from(await whole.arrayBuffer()).equals(file)).toBe(true);

    const withAuth = await get(location, TOKEN);
    expect(withAuth.status).toBe(400);
    expect(await withAuth.text()).toBe(
      '<Error><Code>InvalidArgument</Code><Message>Only one auth mechanism allowed</Message></Error>',
    );
    expect((await get(location.split('?')[0])).status).toBe(403);

    const part = await get(location, undefined, { range: 'bytes=40000-' });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 40000-49999/${file.length}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(file.subarray(40000))).toBe(true);
    const past = await get(location, undefined, { range: `bytes=${file.length}-` });
    expect(past.status).toBe(416);
    expect(past.headers.get('content-range')).toBe(`bytes */${file.length}`);
    await past.text();

    expect(hcp.requests).toContainEqual({ server: 'registry', method: 'GET', path: dl, authorization: undefined });
    expect(hcp.requests).toContainEqual({
      server: 'storage',
      method: 'GET',
      path: `/blobs/${sha256(file)}`,
      authorization: `Bearer ${TOKEN}`,
    });
  });

  it('serves what tests change between runs', async () => {
    hcp.boxes[0].versions[2].status = 'active';
    hcp.boxes[0].short_description = 'changed';
    const cat = await getJson('/acme/base');
    expect(cat.description).toBe('changed');
    expect(cat.versions[0].version).toBe('2.0.0');
  });
});
