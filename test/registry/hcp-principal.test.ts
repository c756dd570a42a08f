import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient } from '../helpers/http';
import { PackerError, replayPackerRegistry } from '../helpers/hcp-registry';

/*
 * Packer's vagrant-registry as a pipeline runs it: signed in with a service principal (POST /oauth2/token, HTTP
 * Basic, as hcp-sdk-go's client credentials send it), then HCP's registry API, over `--tls auto`. The principal
 * publishes to its own organization, and to nothing else; revoked, its token stops at once.
 */
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

let d: TestDaemon;
let olivia: HttpClient;

async function principalOf(owner: HttpClient, org: string) {
  const r = await owner.post(`/api/boxyard/organizations/${org}/service-principals`, {
    service_principal: { name: 'packer' },
  });
  expect(r.status, r.text).toBe(201);
  return r.json.service_principal as { client_id: string; client_secret: string };
}

async function signIn(p: { client_id: string; client_secret: string }): Promise<HttpClient> {
  const r = await d.http.post('/oauth2/token', 'grant_type=client_credentials&audience=https://api.hashicorp.cloud', {
    raw: true,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basic(p.client_id, p.client_secret),
    },
  });
  expect(r.status, r.text).toBe(200);
  expect(r.json).toMatchObject({ token_type: 'Bearer', expires_in: expect.any(Number) });
  return d.http.withToken(r.json.access_token);
}

const run = (registry: string, box: string, file: Buffer) => ({
  registry,
  box,
  version: '1.0.0',
  provider: 'libvirt',
  architecture: 'amd64',
  defaultArchitecture: 'amd64',
  boxDescription: 'built by packer',
  checksum: `sha256:${sha256(file)}`,
  file,
  directLimit: 5 * 1024 ** 3,
});

beforeAll(async () => {
  d = await startTestDaemon({ config: { tls: 'auto' } });
  olivia = (await d.user('olivia', { orgs: ['acme'] })).http;
  await d.user('sam', { orgs: ['other'] });
});
afterAll(() => d?.stop());

describe("a service principal's token on HCP's registry API", () => {
  it("publishes a box to its organization that vagrant's catalog serves", async () => {
    const packer = await signIn(await principalOf(olivia, 'acme'));
    const file = randomBytes(30_000);
    await replayPackerRegistry(packer, run('acme', 'web', file));
    const cat = await d.http.get('/acme/web');
    expect(cat.status, cat.text).toBe(200);
    const provider = cat.json.versions[0].providers[0];
    expect(provider).toMatchObject({ name: 'libvirt', architecture: 'amd64', checksum: sha256(file) });
    const got = await d.http.send(provider.url);
    expect(got.status).toBe(200);
    expect(sha256(Buffer.from(await got.arrayBuffer()))).toBe(sha256(file));
  });

  it("is refused another organization's registry in HCP's shape, and makes nothing there", async () => {
    const packer = await signIn(await principalOf(olivia, 'acme'));
    const err = await replayPackerRegistry(packer, run('other', 'web', randomBytes(1000))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PackerError);
    const res = (err as PackerError).res;
    expect(res.status).toBe(403);
    expect(res.json).toMatchObject({
      code: 7,
      message: expect.any(String),
      details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'forbidden' }],
    });
    expect((await d.http.withToken(d.adminToken).get('/api/v2/box/other/web')).status).toBe(404);
  });

  it('stops at once when the principal is revoked', async () => {
    const p = await principalOf(olivia, 'acme');
    const packer = await signIn(p);
    const versions = '/vagrant/2022-09-30/registry/acme/box/web/versions';
    expect((await packer.post(versions, { name: '2.0.0' })).status).toBe(200);
    const del = await olivia.delete(`/api/boxyard/organizations/acme/service-principals/${p.client_id}`);
    expect(del.status, del.text).toBeLessThan(300);
    const after = await packer.post(versions, { name: '3.0.0' });
    expect(after.status).toBe(401);
    expect(after.json).toMatchObject({ code: 16, details: [{ reason: 'unauthorized' }] });
    const box = await olivia.get('/api/v2/box/acme/web');
    expect(box.json.versions.map((v: { version: string }) => v.version).sort()).toEqual(['1.0.0', '2.0.0']);
  });
});
