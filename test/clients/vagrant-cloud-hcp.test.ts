import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GEM_OK, boxBytes, gemClient, sha256 } from '../helpers/clients';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import { rawPut } from '../helpers/upload';

/*
 * vagrant_cloud 3.1.3's HCP sign-in (lib/vagrant_cloud/auth.rb; Vagrant ≥ 2.4.3 with HCP_CLIENT_ID and
 * HCP_CLIENT_SECRET set and no VAGRANT_CLOUD_TOKEN), replayed as the gem sends it (../shared/spec
 * hcp-vagrant-registry-clients.md §4): OAuth2::Client(id, secret, site: HCP_AUTH_URL, token_url: "/oauth2/token")
 * .client_credentials.get_token → POST with `Authorization: Basic base64(id:secret)` (not URL-escaped), the form
 * `grant_type=client_credentials` and no audience; HCPToken reads `expires_in` whenever the token is used (missing,
 * it raises "Missing required token value - :expires_at"). Then `vagrant cloud publish` with the Bearer token, as
 * test/clients/gem.test.ts replays it with a user's token.
 */

let d: TestDaemon;
let client: { client_id: string; client_secret: string };

/** The oauth2 gem (2.x) over Faraday: the request auth.rb makes. */
async function hcpSignIn(authUrl: string, id: string, secret: string) {
  const res = await fetch(new URL('/oauth2/token', authUrl), {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`,
      'user-agent': 'Faraday v2.12.2',
    },
    body: 'grant_type=client_credentials',
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

/** HCPToken: the token, valid until 5 s before `expires_in` ends; asked again for on every call. */
async function hcpToken() {
  const r = await hcpSignIn(d.url, client.client_id, client.client_secret);
  expect(r.status).toBe(200);
  const expiresIn = r.json.expires_in;
  // validate! needs expires_at, which the gem derives from expires_in.
  expect(Number.isInteger(expiresIn) && (expiresIn as number) > 5).toBe(true);
  expect(String(r.json.token_type).toLowerCase()).toBe('bearer');
  return r.json.access_token as string;
}

beforeAll(async () => {
  d = await startTestDaemon();
  const owner = (await d.user('releaser', { orgs: ['hcp-org'] })).http;
  client = (
    await owner.post('/api/boxyard/organizations/hcp-org/service-principals', {
      service_principal: { name: 'vagrant' },
    })
  ).json.service_principal;
});
afterAll(() => d?.stop());

describe("vagrant_cloud 3.1.3's HCP sign-in, then vagrant cloud publish", () => {
  it('signs in without audience over HTTP Basic and publishes a box with a direct upload', async () => {
    const gem = gemClient(d.url, await hcpToken());
    // client_login, then Account#setup!, which reads user.username.
    for (let i = 0; i < 2; i++) {
      const who = await gem.get('/authenticate');
      expect(GEM_OK).toContain(who.status);
      expect(who.json.user.username).toBeTruthy();
    }
    const org = await gem.get('/user/hcp-org');
    expect(org.status).toBe(200);
    expect(org.json.username).toBe('hcp-org');
    // 3.1.3 wraps the box.
    const box = await gem.post('/boxes', {
      box: { username: 'hcp-org', name: 'signed-in', short_description: 'by hcp auth', is_private: false },
    });
    expect(box.status, box.text).toBe(200);
    const v = await gem.post('/box/hcp-org/signed-in/versions', { version: { version: '1.0.0', description: 'x' } });
    expect(GEM_OK).toContain(v.status);
    const file = boxBytes();
    const p = await gem.post('/box/hcp-org/signed-in/version/1.0.0/providers', {
      provider: {
        name: 'virtualbox',
        checksum: sha256(file),
        checksum_type: 'sha256',
        architecture: 'amd64',
        default_architecture: true,
      },
    });
    expect(GEM_OK, p.text).toContain(p.status);
    const prep = await gem.get('/box/hcp-org/signed-in/version/1.0.0/provider/virtualbox/amd64/upload/direct');
    expect(GEM_OK, prep.text).toContain(prep.status);
    const put = await rawPut(prep.json.upload_path, file, { 'content-length': String(file.length) });
    expect(put.status, put.text).toBe(200);
    // The token is read again (HCPToken#token) before each call: a new process signs in anew, and both work.
    const again = gemClient(d.url, await hcpToken());
    const cb = await again.put(new URL(prep.json.callback).pathname);
    expect(GEM_OK, cb.text).toContain(cb.status);
    const rel = await gem.put('/box/hcp-org/signed-in/version/1.0.0/release');
    expect(GEM_OK).toContain(rel.status);
    expect(rel.json.status).toBe('active');
    // Anyone now sees the released box in the catalog vagrant reads.
    const catalog = await d.http.get('/hcp-org/signed-in');
    expect(catalog.json.versions[0].providers[0].checksum).toBe(sha256(file));
  });

  it('refuses a box of an organization the principal is not of, and a wrong secret, in their own dialects', async () => {
    await d.user('outsider', { orgs: ['elsewhere'] });
    const gem = gemClient(d.url, await hcpToken());
    const other = await gem.post('/boxes', { box: { username: 'elsewhere', name: 'nope', is_private: false } });
    expect(other.status).toBe(403);
    expect(other.json).toMatchObject({ success: false, code: 'forbidden' });
    const wrong = await hcpSignIn(d.url, client.client_id, 'wrong');
    expect(wrong.status).toBe(401);
    // OAuth2::Error reads error and error_description.
    expect(wrong.json).toMatchObject({ error: 'invalid_client', error_description: expect.any(String) });
  });
});
