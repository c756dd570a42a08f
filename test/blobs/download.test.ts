import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../daemon/src/lib/clock';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient } from '../helpers/http';
import { createBox } from '../helpers/registry';
import { hostedProvider, providerRow, storedBlobs } from '../helpers/blobs';
import { rawGet, rawPut } from '../helpers/upload';

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

let d: TestDaemon;
let alice: { token: string; http: HttpClient };
let bob: { token: string; http: HttpClient };

/** Hosted provider with `file` uploaded (plain upload), optionally released. */
async function hosted(box: string, version: string, file: Buffer, release = true) {
  const api = await hostedProvider(alice.http, 'alice', box, version);
  const put = await rawPut((await alice.http.get(`${api}/upload`)).json.upload_path, file);
  expect(put.status).toBe(200);
  if (release) expect((await alice.http.put(`/api/v1/box/alice/${box}/version/${version}/release`)).status).toBe(200);
  return api;
}

const downloads = async (box: string) =>
  (await d.deps.db.selectFrom('boxes').select('downloads').where('name', '=', box).executeTakeFirstOrThrow()).downloads;

beforeAll(async () => {
  d = await startTestDaemon();
  alice = await d.user('alice');
  bob = await d.user('bob');
  await createBox(alice.http, 'alice', 'pub');
  await createBox(alice.http, 'alice', 'secret', { private: true });
});
afterAll(() => d.stop());

describe('GET /ORG/boxes/BOX/versions/V/providers/P/ARCH/vagrant.box', () => {
  const file = randomBytes(64 * 1024);
  let url: string;
  beforeAll(async () => {
    await hosted('pub', '1.0.0', file);
    const catalog = await d.http.get('/alice/pub');
    expect(catalog.status).toBe(200);
    const p = catalog.json.versions[0].providers[0];
    expect(p).toMatchObject({ name: 'virtualbox', checksum: sha256(file), checksum_type: 'sha256' });
    url = p.url;
    expect(url).toBe(`${d.url}/alice/boxes/pub/versions/1.0.0/providers/virtualbox/${p.architecture}/vagrant.box`);
  });

  it('serves the whole file with length, ETag and Accept-Ranges, and counts the download', async () => {
    const before = await downloads('pub');
    const r = await rawGet(url);
    expect(r.status).toBe(200);
    expect(r.body.equals(file)).toBe(true);
    expect(r.headers).toMatchObject({
      'accept-ranges': 'bytes',
      etag: `"${sha256(file)}"`,
      'content-length': String(file.length),
      'content-type': 'application/octet-stream',
    });
    await expect.poll(() => downloads('pub')).toBe(before + 1);
  });

  it('answers HEAD with the same headers and no body, without counting', async () => {
    const before = await downloads('pub');
    const r = await d.http.head(new URL(url).pathname);
    expect(r.status).toBe(200);
    expect(r.text).toBe('');
    expect(r.headers.get('content-length')).toBe(String(file.length));
    expect(r.headers.get('etag')).toBe(`"${sha256(file)}"`);
    expect(await downloads('pub')).toBe(before);
  });

  it('serves ranges with 206 and counts a resumed download once it reaches the end', async () => {
    const before = await downloads('pub');
    const head = await rawGet(url, { range: 'bytes=0-99' });
    expect(head.status).toBe(206);
    expect(head.headers['content-range']).toBe(`bytes 0-99/${file.length}`);
    expect(head.body.equals(file.subarray(0, 100))).toBe(true);
    expect(await downloads('pub')).toBe(before);
    const rest = await rawGet(url, { range: 'bytes=100-' });
    expect(rest.status).toBe(206);
    expect(rest.headers['content-length']).toBe(String(file.length - 100));
    expect(Buffer.concat([head.body, rest.body]).equals(file)).toBe(true);
    await expect.poll(() => downloads('pub')).toBe(before + 1);
  });

  it('answers 416 with Content-Range bytes */SIZE at or past the end', async () => {
    for (const range of [`bytes=${file.length}-`, `bytes=${file.length + 10}-`]) {
      const r = await rawGet(url, { range });
      expect(r.status).toBe(416);
      expect(r.headers['content-range']).toBe(`bytes */${file.length}`);
      expect(r.body.length).toBe(0);
    }
  });

  it('answers 404 in the box dialect for unknown versions, providers and unuploaded files', async () => {
    const missing = await d.http.get('/alice/boxes/pub/versions/9.9.9/providers/virtualbox/amd64/vagrant.box');
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({
      errors: [expect.stringContaining('no version')],
      success: false,
      code: 'not_found',
    });
    await hostedProvider(alice.http, 'alice', 'pub', '1.1.0');
    const arch = (await providerRow(d, 'pub', '1.1.0')).architecture;
    // An unreleased version: only who may manage the box is told that its file is missing.
    const empty = await alice.http.get(`/alice/boxes/pub/versions/1.1.0/providers/virtualbox/${arch}/vagrant.box`);
    expect(empty.status).toBe(404);
    expect(empty.json.errors[0]).toMatch(/No box file has been uploaded/);
  });
});

describe('providers with an external url', () => {
  it('redirect the hosted download path to that url', async () => {
    const api = await hostedProvider(alice.http, 'alice', 'pub', '7.0.0');
    expect((await alice.http.put(api, { provider: { url: 'https://mirror.example/pub-7.box' } })).status).toBe(200);
    expect((await alice.http.put('/api/v1/box/alice/pub/version/7.0.0/release')).status).toBe(200);
    const arch = (await providerRow(d, 'pub', '7.0.0')).architecture;
    const r = await d.http.get(`/alice/boxes/pub/versions/7.0.0/providers/virtualbox/${arch}/vagrant.box`);
    expect(r.status).toBe(302);
    expect(r.headers.get('location')).toBe('https://mirror.example/pub-7.box');
  });
});

describe('private boxes', () => {
  const file = randomBytes(4096);
  let path: string;
  beforeAll(async () => {
    await hosted('secret', '1.0.0', file);
    path = `/alice/boxes/secret/versions/1.0.0/providers/virtualbox/${(await providerRow(d, 'secret', '1.0.0')).architecture}/vagrant.box`;
  });

  it('answer 404 without a token or to someone who may not see them', async () => {
    for (const r of [await d.http.get(path), await bob.http.get(path), await d.http.withToken('nonsense').get(path)]) {
      expect(r.status).toBe(404);
      expect(r.json.success).toBe(false);
    }
  });

  it('serve the owner through Bearer, X-Atlas-Token and ?access_token=', async () => {
    const viaBearer = await rawGet(`${d.url}${path}`, { authorization: `Bearer ${alice.token}` });
    const viaAtlas = await rawGet(`${d.url}${path}`, { 'x-atlas-token': alice.token });
    const viaQuery = await rawGet(`${d.url}${path}?access_token=${alice.token}`);
    for (const r of [viaBearer, viaAtlas, viaQuery]) {
      expect(r.status).toBe(200);
      expect(r.body.equals(file)).toBe(true);
    }
  });
});

describe('garbage collection', () => {
  it('removes blobs of deleted providers, versions and boxes, keeping shared content', async () => {
    await createBox(alice.http, 'alice', 'gc');
    const shared = randomBytes(2048);
    const own = [randomBytes(2048), randomBytes(2048), randomBytes(2048)];
    await hosted('gc', '1.0.0', own[0], false);
    await hosted('gc', '2.0.0', own[1], false);
    await hosted('gc', '3.0.0', shared, false);
    await hosted('pub', '5.0.0', shared, false); // same content in another box: stored once
    await createBox(alice.http, 'alice', 'gc2');
    await hosted('gc2', '1.0.0', own[2], false);
    expect(await storedBlobs(d)).toEqual(expect.arrayContaining([...own, shared].map(sha256)));

    expect((await alice.http.delete('/api/v1/box/alice/gc/version/1.0.0/provider/virtualbox')).status).toBe(200);
    expect((await alice.http.delete('/api/v1/box/alice/gc/version/2.0.0')).status).toBe(200);
    expect((await alice.http.delete('/api/v1/box/alice/gc2')).status).toBe(200);
    // The box holding a copy of `shared` goes too; the other reference keeps it.
    expect((await alice.http.delete('/api/v1/box/alice/gc')).status).toBe(200);

    const result = await d.deps.blobCollector.run({ graceMs: 0 });
    expect(result.blobs.sort()).toEqual(own.map(sha256).sort());
    const left = await storedBlobs(d);
    expect(left).toContain(sha256(shared));
    const referenced = await d.deps.registry.referencedBlobDigests();
    expect(left.filter((b) => !referenced.has(b))).toEqual([]);
  });

  it('spares recent blobs by default (a commit racing the collection)', async () => {
    const before = await storedBlobs(d);
    const api = await hostedProvider(alice.http, 'alice', 'pub', '6.0.0');
    const file = randomBytes(100);
    const prep = await alice.http.get(`${api}/upload/direct`);
    expect((await rawPut(prep.json.upload_path, file)).status).toBe(200);
    // Stored but not yet attached: the pending direct upload keeps it even without grace.
    expect((await d.deps.blobCollector.run({ graceMs: 0 })).blobs).toEqual([]);
    expect((await alice.http.put(new URL(prep.json.callback).pathname)).status).toBe(200);
    expect(await storedBlobs(d)).toEqual([...before, sha256(file)].sort());
  });
});

describe('upload URL expiry and the public URL', () => {
  let e: TestDaemon;
  const clock = new ManualClock(new Date());
  beforeAll(async () => {
    e = await startTestDaemon({ clock, config: { uploadTtlHours: 2, publicUrl: 'https://boxes.example.lan/' } });
  });
  afterAll(() => e.stop());

  it('links through the configured public URL and refuses a PUT after the TTL', async () => {
    const carol = await e.user('carol');
    await createBox(carol.http, 'carol', 'exp');
    const api = await hostedProvider(carol.http, 'carol', 'exp', '1.0.0');
    const prep = await carol.http.get(`${api}/upload/direct`);
    expect(prep.json.upload_path).toMatch(/^https:\/\/boxes\.example\.lan\/uploads\//);
    expect(prep.json.callback).toMatch(/^https:\/\/boxes\.example\.lan\/api\/v1\/box\/carol\/exp\//);
    const local = prep.json.upload_path.replace('https://boxes.example.lan', e.url);
    clock.advance(2 * 3_600_000 + 1000);
    const late = await rawPut(local, randomBytes(10));
    expect(late.status).toBe(404);
    expect(JSON.parse(late.text).errors[0]).toMatch(/expired/);
    expect((await providerRow(e, 'exp', '1.0.0')).blob_sha256).toBeNull();
    // Asking again gives a fresh URL that works.
    const fresh = (await carol.http.get(`${api}/upload`)).json.upload_path.replace('https://boxes.example.lan', e.url);
    expect((await rawPut(fresh, Buffer.from('box'))).status).toBe(200);
    expect((await providerRow(e, 'exp', '1.0.0')).blob_sha256).toBe(sha256(Buffer.from('box')));
  });
});
