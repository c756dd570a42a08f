import { createHash, randomBytes } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient, HttpResponse } from '../helpers/http';
import { createBox } from '../helpers/registry';
import { hostedProvider, providerRow, stagedUploads, storedBlobs } from '../helpers/blobs';
import { rawPut } from '../helpers/upload';

// An upload URL acts with the rights of the user who made it as they are when it is
// used. Once they may no longer change the box (removed from its organization, no longer an
// administrator), its PUT stores nothing and the provider keeps its file; so does a direct
// upload's callback. Sessions of the web UI make upload URLs too.

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const CSRF = { 'x-boxyard-csrf': '1' };
const REFUSED = {
  errors: [expect.stringMatching(/user who made this upload URL may no longer change this box/)],
  success: false,
  code: 'forbidden',
};

let d: TestDaemon;
let admin: HttpClient;
let alice: HttpClient;
const API = '/api/v1/box/a-org/web';

const member = async (name: string, role: 'member' | 'owner' = 'member') =>
  expect((await alice.put(`/api/boxyard/organizations/a-org/members/${name}`, { member: { role } })).status).toBe(200);
const removed = async (name: string) =>
  expect((await alice.delete(`/api/boxyard/organizations/a-org/members/${name}`)).status).toBe(204);
const catalogChecksum = async (version: string) => {
  const doc = (await d.http.get('/a-org/web')).json as {
    versions: Array<{ version: string; providers: Array<{ checksum: string }> }>;
  };
  return doc.versions.find((v) => v.version === version)?.providers[0].checksum;
};

/** A released version whose file alice uploaded: what a removed member must not replace. */
async function released(version: string): Promise<Buffer> {
  const api = await hostedProvider(alice, 'a-org', 'web', version);
  const file = randomBytes(20_000);
  expect((await rawPut((await alice.get(`${api}/upload`)).json.upload_path, file)).status).toBe(200);
  expect((await alice.put(`${API}/version/${version}/release`)).status).toBe(200);
  expect(await catalogChecksum(version)).toBe(sha256(file));
  return file;
}

/** The refused PUT left everything as it was: the provider's file, the catalog, the stored and staged files. */
async function unchanged(version: string, file: Buffer, stored: string[]) {
  expect(await providerRow(d, 'web', version)).toMatchObject({ blob_sha256: sha256(file), size: file.length });
  expect(await catalogChecksum(version)).toBe(sha256(file));
  expect(await storedBlobs(d)).toEqual(stored);
  expect(await stagedUploads(d)).toEqual([]);
}

beforeAll(async () => {
  d = await startTestDaemon();
  admin = d.http.withToken(d.adminToken);
  alice = (await d.user('alice', { orgs: ['a-org'] })).http;
  await createBox(alice, 'a-org', 'web');
});
afterAll(() => d?.stop());

describe("an upload URL acts with its issuer's rights at its PUT", () => {
  it('a member removed from the organization: the PUT is refused (403) before the body is read, the released file stays', async () => {
    const bob = (await d.user('bob')).http;
    await member('bob');
    const file = await released('1.0.0');
    const url = (await bob.get(`${API}/version/1.0.0/provider/virtualbox/upload`)).json.upload_path as string;
    await removed('bob');
    const stored = await storedBlobs(d);
    const his = randomBytes(20_000);
    const put = await rawPut(url, his, { expect: '100-continue', 'content-length': String(his.length) });
    expect(put.status).toBe(403);
    expect(put.continued).toBe(false);
    expect(JSON.parse(put.text)).toEqual(REFUSED);
    await unchanged('1.0.0', file, stored);
    // Made a member again, the same URL takes his upload: it acts with his rights as they are now.
    await member('bob');
    expect((await rawPut(url, his)).status).toBe(200);
    expect(await catalogChecksum('1.0.0')).toBe(sha256(his));
  });

  /**
   * Starts a PUT of `name`'s URL for `version`, and once it is receiving does `meanwhile`: the answer, and the file it
   * must leave.
   */
  async function midStream(name: string, version: string, meanwhile: (http: HttpClient) => Promise<void>) {
    const http = (await d.user(name)).http;
    await member(name);
    const file = await released(version);
    const url = (await http.get(`${API}/version/${version}/provider/virtualbox/upload`)).json.upload_path as string;
    const stored = await storedBlobs(d);
    const body = new PassThrough();
    const put = rawPut(url, body);
    body.write(randomBytes(10_000));
    const receiving = () =>
      d.deps.db.selectFrom('upload_sessions').select('state').where('state', '=', 'receiving').executeTakeFirst();
    for (const until = Date.now() + 10_000; !(await receiving()); await new Promise((r) => setTimeout(r, 20))) {
      if (Date.now() > until) throw new Error('the PUT did not start receiving');
    }
    await meanwhile(http);
    body.end(randomBytes(10_000));
    return { answer: await put, file, stored };
  }

  it('removed while the body streams: refused before the file is attached, nothing kept', async () => {
    const { answer, file, stored } = await midStream('carl', '1.1.0', () => removed('carl'));
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.text)).toEqual(REFUSED);
    await unchanged('1.1.0', file, stored);
  });

  it('its token revoked while the body streams: refused before the file is attached, nothing kept', async () => {
    const { answer, file, stored } = await midStream('dave', '1.1.9', async (http) => {
      expect((await http.delete('/api/v1/authenticate')).status).toBe(204);
    });
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.text)).toMatchObject({
      code: 'forbidden',
      errors: [expect.stringMatching(/API token that has since been revoked/)],
    });
    await unchanged('1.1.9', file, stored);
  });

  it('an owner made a member keeps the right to change boxes (roles differ only in managing the organization)', async () => {
    const dora = (await d.user('dora')).http;
    await member('dora', 'owner');
    const api = await hostedProvider(alice, 'a-org', 'web', '1.2.0');
    const url = (await dora.get(`${api}/upload`)).json.upload_path as string;
    await member('dora', 'member');
    const file = randomBytes(5_000);
    expect((await rawPut(url, file)).status).toBe(200);
    expect((await providerRow(d, 'web', '1.2.0')).blob_sha256).toBe(sha256(file));
  });

  it('an administrator who is no longer one: the URL they made for a box not theirs is refused', async () => {
    await d.user('erin');
    expect((await admin.patch('/api/boxyard/users/erin', { user: { admin: true } })).status).toBe(200);
    const erin = d.http.withToken(
      (await d.http.post('/api/v1/authenticate', { user: { login: 'erin', password: 'erin-password' } })).json.token,
    );
    const file = await released('1.3.0');
    const url = (await erin.get(`${API}/version/1.3.0/provider/virtualbox/upload`)).json.upload_path as string;
    expect((await admin.patch('/api/boxyard/users/erin', { user: { admin: false } })).status).toBe(200);
    const stored = await storedBlobs(d);
    const put = await rawPut(url, randomBytes(5_000));
    expect(put.status).toBe(403);
    expect(JSON.parse(put.text)).toEqual(REFUSED);
    await unchanged('1.3.0', file, stored);
  });

  it('a URL made through a web UI session (no API token of its own) is refused once its user is removed', async () => {
    await d.user('fred');
    await member('fred');
    const signIn: HttpResponse = await d.http.post(
      '/api/boxyard/session',
      { user: { login: 'fred', password: 'fred-password' } },
      { headers: CSRF },
    );
    expect(signIn.status, signIn.text).toBe(200);
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0];
    const file = await released('1.4.0');
    const prep = await d.http.get(`${API}/version/1.4.0/provider/virtualbox/upload`, { headers: { cookie } });
    expect(prep.status, prep.text).toBe(200);
    await removed('fred');
    const stored = await storedBlobs(d);
    const put = await rawPut(prep.json.upload_path, randomBytes(5_000));
    expect(put.status).toBe(403);
    expect(JSON.parse(put.text)).toEqual(REFUSED);
    await unchanged('1.4.0', file, stored);
  });

  it('a direct upload stored before the removal is not attached by its callback, whoever calls it', async () => {
    const gus = (await d.user('gus')).http;
    await member('gus');
    const file = await released('1.5.0');
    const prep = (await gus.get(`${API}/version/1.5.0/provider/virtualbox/upload/direct`)).json as {
      upload_path: string;
      callback: string;
    };
    const his = randomBytes(5_000);
    expect((await rawPut(prep.upload_path, his)).status).toBe(200);
    await removed('gus');
    const callback = new URL(prep.callback).pathname;
    // His own callback: he may no longer change the box (it is public, so 403 rather than 404).
    expect((await gus.put(callback)).status).toBe(403);
    // An owner's: the file is the issuer's, and he may no longer change the box.
    const byOwner = await alice.put(callback);
    expect(byOwner.status).toBe(403);
    expect(byOwner.json).toEqual(REFUSED);
    expect(await providerRow(d, 'web', '1.5.0')).toMatchObject({ blob_sha256: sha256(file) });
    expect(await catalogChecksum('1.5.0')).toBe(sha256(file));
  });
});
