import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../daemon/src/lib/clock';
import { errorCodeOf } from '../../daemon/src/contract/error-codes';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient } from '../helpers/http';
import { snapshot } from '../helpers/registry';
import { replayPackerRegistry, uploadPut } from '../helpers/hcp-registry';

/*
 * What HCP's registry API refuses, as an attacker would try it: each refusal in HCP's shape with a fitting status and
 * Boxyard's code as its reason, and nothing changed.
 */
const LIMIT = 32 * 1024;
const API = '/vagrant/2022-09-30/registry';
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const clock = new ManualClock(new Date());

let d: TestDaemon;
let alice: HttpClient;
let mallory: HttpClient;

/** An HCP error: the status, Boxyard's code, and a message Packer can show. */
function refused(r: { status: number; json?: unknown; text: string }, status: number, code: string) {
  expect(r.status, r.text).toBe(status);
  expect(errorCodeOf(r.json), r.text).toBe(code);
  expect((r.json as { message: string }).message.length).toBeGreaterThan(0);
}

/** A version with a provider and an architecture declaring `checksum` of `file`, unreleased. */
async function architecture(box: string, version: string, file: Buffer) {
  const base = `${API}/acme/box/${box}`;
  if ((await alice.get(base)).status === 404)
    expect((await alice.post(`${API}/acme/boxes`, { name: box, is_private: true })).status).toBe(200);
  expect((await alice.post(`${base}/versions`, { name: version })).status).toBe(200);
  expect((await alice.post(`${base}/version/${version}/providers`, { name: 'virtualbox' })).status).toBe(200);
  const arch = await alice.post(`${base}/version/${version}/provider/virtualbox/architectures`, {
    architecture_type: 'amd64',
    box_data: { checksum: sha256(file), checksum_type: 'sha256' },
  });
  expect(arch.status, arch.text).toBe(200);
  return `${base}/version/${version}/provider/virtualbox/architecture/amd64`;
}

beforeAll(async () => {
  d = await startTestDaemon({ clock, config: { directUploadLimitBytes: LIMIT, uploadTtlHours: 1 } });
  alice = (await d.user('alice', { orgs: ['acme'] })).http;
  mallory = (await d.user('mallory', { orgs: ['evil'] })).http;
});
afterAll(() => d?.stop());

describe('uploads', () => {
  it('refuses a file whose checksum does not match (409), stores nothing, and takes the right file after', async () => {
    const file = randomBytes(5000);
    const arch = await architecture('sums', '1.0.0', file);
    const { url, object } = (await alice.get(`${arch}/direct/upload`)).json;
    expect(new URL(url).pathname).toMatch(/^\/vagrant\/2022-09-30\/uploads\//);
    const before = await snapshot(d);
    refused(await uploadPut(alice, url, randomBytes(5000)), 409, 'conflict');
    expect(await snapshot(d)).toEqual(before);
    refused(await alice.put(`${arch}/direct/complete/${object}`), 409, 'conflict');
    expect((await uploadPut(alice, url, file)).status).toBe(200);
    expect((await alice.put(`${arch}/direct/complete/${object}`)).status).toBe(200);
  });

  it('refuses an upload URL used twice, and one past its expiry', async () => {
    const file = randomBytes(4000);
    const arch = await architecture('once', '1.0.0', file);
    const first = (await alice.get(`${arch}/upload`)).json.url;
    expect((await uploadPut(alice, first, file)).status).toBe(200);
    const before = await snapshot(d);
    refused(await uploadPut(alice, first, file), 404, 'not_found');
    const late = (await alice.get(`${arch}/direct/upload`)).json;
    clock.advance(3_600_000 + 1000);
    refused(await uploadPut(alice, late.url, file), 404, 'not_found');
    // Its file never came: nothing to complete.
    refused(await alice.put(`${arch}/direct/complete/${late.object}`), 409, 'conflict');
    expect(await snapshot(d)).toEqual(before);
  });

  it('refuses a direct upload above the limit before reading it (413); the plain upload takes it', async () => {
    const file = randomBytes(LIMIT + 1);
    const arch = await architecture('large', '1.0.0', file);
    const direct = (await alice.get(`${arch}/direct/upload`)).json.url;
    refused(await uploadPut(alice, direct, file), 413, 'payload_too_large');
    const plain = (await alice.get(`${arch}/upload`)).json.url;
    expect((await uploadPut(alice, plain, file)).status).toBe(200);
  });

  it('refuses an unknown object and a complete for another architecture', async () => {
    const file = randomBytes(1000);
    const arch = await architecture('objects', '1.0.0', file);
    refused(await alice.put(`${arch}/direct/complete/upl_nothing`), 404, 'not_found');
    const { object } = (await alice.get(`${arch}/direct/upload`)).json;
    const other = await architecture('objects', '2.0.0', file);
    refused(await alice.put(`${other}/direct/complete/${object}`), 404, 'not_found');
  });
});

describe('rights and state', () => {
  it('lets a member who is not an owner publish into the organization, as the Vagrant Cloud API does', async () => {
    const bob = await d.user('bob');
    const added = await alice.put('/api/boxyard/organizations/acme/members/bob', { member: { role: 'member' } });
    expect(added.status).toBe(200);
    await replayPackerRegistry(bob.http, {
      registry: 'acme',
      box: 'by-member',
      version: '1.0.0',
      provider: 'virtualbox',
      architecture: 'amd64',
      file: randomBytes(1000),
      directLimit: LIMIT,
    });
    expect((await d.http.get('/api/v2/box/acme/by-member')).json.versions[0].status).toBe('active');
  });

  it("keeps another organization's user out: 403 on a registry they may not change, 404 on a private box", async () => {
    const file = randomBytes(1000);
    const arch = await architecture('private', '1.0.0', file);
    const before = await snapshot(d);
    refused(await mallory.post(`${API}/acme/boxes`, { name: 'planted' }), 403, 'forbidden');
    refused(await mallory.get(`${API}/acme/box/private`), 404, 'not_found');
    refused(await mallory.post(`${API}/acme/box/private/versions`, { name: '9.0.0' }), 404, 'not_found');
    refused(await mallory.get(`${arch}/direct/upload`), 404, 'not_found');
    refused(await mallory.put(`${API}/acme/box/private/version/1.0.0/release`), 404, 'not_found');
    refused(await d.http.get(`${arch}/upload`), 401, 'unauthorized');
    expect(await snapshot(d)).toEqual(before);
  });

  it('refuses a version already released (409), and one that breaks the naming rules (400)', async () => {
    await replayPackerRegistry(alice, {
      registry: 'acme',
      box: 'done',
      version: '1.0.0',
      provider: 'virtualbox',
      architecture: 'amd64',
      file: randomBytes(1000),
      directLimit: LIMIT,
    });
    const before = await snapshot(d);
    refused(await alice.put(`${API}/acme/box/done/version/1.0.0/release`), 409, 'conflict');
    refused(await alice.post(`${API}/acme/box/done/versions`, { name: 'v1.0' }), 400, 'validation');
    refused(await alice.post(`${API}/acme/box/done/versions`, { name: '1.0.0' }), 409, 'conflict');
    refused(await alice.post(`${API}/acme/boxes`, { name: '../etc' }), 400, 'validation');
    const providers = `${API}/acme/box/done/version/1.0.0/providers`;
    refused(await alice.post(providers, { name: 'a/b' }), 400, 'validation');
    const archs = `${API}/acme/box/done/version/1.0.0/provider/virtualbox/architectures`;
    refused(await alice.post(archs, { architecture_type: 'sparc' }), 400, 'validation');
    const bad = { architecture_type: 'arm64', box_data: { checksum: 'xyz', checksum_type: 'sha256' } };
    refused(await alice.post(archs, bad), 400, 'validation');
    const url = { architecture_type: 'arm64', box_data: { download_url: 'file:///etc/passwd' } };
    refused(await alice.post(archs, url), 400, 'validation');
    expect(await snapshot(d)).toEqual(before);
  });

  it('answers an operation only at its own location, and only to who may see the box', async () => {
    const made = await alice.post(`${API}/acme/boxes`, { name: 'ops', is_private: true });
    const { id, location } = made.json.operation;
    const wait = (org: string, project: string, who = alice) =>
      who.get(`/operation/2020-05-05/organizations/${org}/projects/${project}/operations/${id}/wait?timeout=60s`);
    const done = await wait(location.organization_id, location.project_id);
    expect(done.status).toBe(200);
    expect(done.json.operation).toMatchObject({ id, state: 'DONE', location });
    expect(done.json.operation).not.toHaveProperty('error');
    refused(await wait('someone-else', location.project_id), 404, 'not_found');
    refused(await wait(location.organization_id, location.project_id, mallory), 404, 'not_found');
  });
});
