import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient } from '../helpers/http';
import { createBox } from '../helpers/registry';
import { hostedProvider, providerRow, stagedUploads, storedBlobs, storesInBucket } from '../helpers/blobs';
import { rawGet, rawPut, truncatedPut } from '../helpers/upload';

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');

let d: TestDaemon;
let alice: { token: string; http: HttpClient };
let bob: { token: string; http: HttpClient };

beforeAll(async () => {
  // boxes.lan: a LAN name the daemon answers to (BOXYARD_ALLOWED_HOSTS), for the Host-built links below.
  d = await startTestDaemon({ config: { allowedHosts: ['boxes.lan'] } });
  alice = await d.user('alice');
  bob = await d.user('bob');
  await createBox(alice.http, 'alice', 'up');
});
afterAll(() => d.stop());

describe('plain upload (GET …/upload, PUT finalizes)', () => {
  it('stores the file content-addressed and points the provider at it', async () => {
    const api = await hostedProvider(alice.http, 'alice', 'up', '1.0.0');
    const prep = await alice.http.get(`${api}/upload`);
    expect(prep.status).toBe(200);
    expect(Object.keys(prep.json)).toEqual(['upload_path']);
    expect(prep.json.upload_path).toMatch(new RegExp(`^${d.url}/uploads/[A-Za-z0-9_-]{40,}$`));

    const file = randomBytes(300_000);
    // Packer's non-direct upload: the binary as application/json, with its Bearer header.
    const put = await rawPut(prep.json.upload_path, file, {
      'content-type': 'application/json',
      authorization: `Bearer ${alice.token}`,
    });
    expect(put.status).toBe(200);
    const row = await providerRow(d, 'up', '1.0.0');
    expect(row).toMatchObject({ blob_sha256: sha256(file), size: file.length });
    expect(await storedBlobs(d)).toContain(sha256(file));
    expect(await stagedUploads(d)).toEqual([]);

    const again = await rawPut(prep.json.upload_path, file);
    expect(again.status).toBe(404);
    expect(JSON.parse(again.text)).toEqual({
      errors: [expect.stringMatching(/unknown, expired or already used/)],
      success: false,
      code: 'not_found',
    });
  });

  it('turns a provider that had an external url into a hosted one', async () => {
    const base = '/api/v1/box/alice/up/version/1.0.9';
    expect((await alice.http.post('/api/v1/box/alice/up/versions', { version: { version: '1.0.9' } })).status).toBe(
      200,
    );
    expect(
      (
        await alice.http.post(`${base}/providers`, {
          provider: { name: 'virtualbox', url: 'http://mirror.invalid/a.box' },
        })
      ).status,
    ).toBe(200);
    const file = randomBytes(50_000);
    const put = await rawPut((await alice.http.get(`${base}/provider/virtualbox/upload`)).json.upload_path, file);
    expect(put.status).toBe(200);
    expect(await providerRow(d, 'up', '1.0.9')).toMatchObject({ url: null, blob_sha256: sha256(file) });
    const shown = await alice.http.get(`${base}/provider/virtualbox`);
    expect(shown.json).toMatchObject({
      hosted: true,
      download_url: `${d.url}/alice/boxes/up/versions/1.0.9/providers/virtualbox/unknown/vagrant.box`,
    });
  });

  it('gives a new URL each time and accepts chunked bodies with Expect: 100-continue', async () => {
    const api = await hostedProvider(alice.http, 'alice', 'up', '1.0.1');
    const a = (await alice.http.get(`${api}/upload`)).json.upload_path;
    const b = (await alice.http.get(`${api}/upload`)).json.upload_path;
    expect(a).not.toBe(b);
    const file = randomBytes(200_000);
    const chunks = [file.subarray(0, 70_000), file.subarray(70_000, 150_000), file.subarray(150_000)];
    const put = await rawPut(b, Readable.from(chunks), { expect: '100-continue', 'transfer-encoding': 'chunked' });
    expect(put.status).toBe(200);
    expect(put.continued).toBe(true);
    expect(await providerRow(d, 'up', '1.0.1')).toMatchObject({ blob_sha256: sha256(file), size: file.length });
  });

  it('builds upload links from the request Host (an allowed one) when no public URL is configured', async () => {
    const api = await hostedProvider(alice.http, 'alice', 'up', '1.0.2');
    const raw = await rawGet(`${d.url}${api}/upload/direct`, {
      host: 'boxes.lan:9999',
      authorization: `Bearer ${alice.token}`,
    });
    expect(raw.status).toBe(200);
    const r = { json: JSON.parse(raw.text) };
    expect(r.json.upload_path.startsWith('http://boxes.lan:9999/uploads/')).toBe(true);
    expect(
      r.json.callback.startsWith(
        'http://boxes.lan:9999/api/v1/box/alice/up/version/1.0.2/provider/virtualbox/upload/direct/',
      ),
    ).toBe(true);
  });

  it('needs a token and the right to manage the box to prepare, and changes nothing otherwise', async () => {
    const api = await hostedProvider(alice.http, 'alice', 'up', '1.0.3');
    expect((await d.http.get(`${api}/upload`)).status).toBe(401);
    const other = await bob.http.get(`${api}/upload`);
    expect(other.status).toBe(403);
    expect(other.json.success).toBe(false);
    expect((await alice.http.get(`${api.replace('1.0.3', '9.9.9')}/upload`)).status).toBe(404);
    const n = await d.deps.db
      .selectFrom('upload_sessions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('provider_id', '=', (await providerRow(d, 'up', '1.0.3')).id)
      .executeTakeFirstOrThrow();
    expect(Number(n.n)).toBe(0);
  });
});

describe('direct upload (GET …/upload/direct, PUT, then the callback finalizes)', () => {
  it('stores on PUT and attaches only on the authenticated callback', async () => {
    const api = await hostedProvider(alice.http, 'alice', 'up', '2.0.0');
    const prep = await alice.http.get(`${api}/upload/direct`);
    expect(prep.status).toBe(200);
    expect(Object.keys(prep.json).sort()).toEqual(['callback', 'upload_path']);
    const callback = new URL(prep.json.callback);
    expect(callback.pathname).toMatch(
      /^\/api\/v1\/box\/alice\/up\/version\/2\.0\.0\/provider\/virtualbox\/upload\/direct\/upl-\w+$/,
    );

    const early = await alice.http.put(callback.pathname);
    expect(early.status).toBe(422);
    expect(early.json.errors[0]).toMatch(/not been uploaded yet/);

    const file = randomBytes(100_000);
    expect(
      (await rawPut(prep.json.upload_path, file, { 'content-length': String(file.length), expect: '100-continue' }))
        .status,
    ).toBe(200);
    expect((await providerRow(d, 'up', '2.0.0')).blob_sha256).toBeNull();
    expect(await storedBlobs(d)).toContain(sha256(file));

    expect((await d.http.put(callback.pathname)).status).toBe(401);
    expect((await bob.http.put(callback.pathname)).status).toBe(403);
    const done = await alice.http.put(callback.pathname);
    expect(done.status).toBe(200);
    expect(await providerRow(d, 'up', '2.0.0')).toMatchObject({ blob_sha256: sha256(file), size: file.length });
    expect((await alice.http.put(callback.pathname)).status).toBe(404);
  });

  it('returns the callback under /api/v2 with the architecture for API v2 requests', async () => {
    const api = await hostedProvider(alice.http, 'alice', 'up', '2.0.1', { api: 'v2', architecture: 'arm64' });
    const prep = await alice.http.get(`${api}/upload/direct`);
    expect(prep.status).toBe(200);
    const callback = new URL(prep.json.callback);
    expect(callback.pathname).toMatch(
      /^\/api\/v2\/box\/alice\/up\/version\/2\.0\.1\/provider\/virtualbox\/arm64\/upload\/direct\/upl-\w+$/,
    );
    const file = randomBytes(1000);
    expect((await rawPut(prep.json.upload_path, file)).status).toBe(200);
    expect((await alice.http.put(callback.pathname)).status).toBe(200);
    expect(await providerRow(d, 'up', '2.0.1', 'arm64')).toMatchObject({ blob_sha256: sha256(file) });
  });
});

describe('refused uploads leave the provider as it was', () => {
  it('verifies a declared checksum: a mismatch is 422 and stores nothing', async () => {
    const file = randomBytes(50_000);
    const api = await hostedProvider(alice.http, 'alice', 'up', '3.0.0', { checksum: md5(file), checksum_type: 'md5' });
    const url = (await alice.http.get(`${api}/upload`)).json.upload_path;
    const wrong = randomBytes(50_000);
    const bad = await rawPut(url, wrong);
    expect(bad.status).toBe(422);
    expect(JSON.parse(bad.text)).toEqual({
      errors: [expect.stringContaining(`md5 is ${md5(wrong)}, but the provider declares ${md5(file)}`)],
      success: false,
      code: 'conflict',
    });
    expect((await providerRow(d, 'up', '3.0.0')).blob_sha256).toBeNull();
    expect(await storedBlobs(d)).not.toContain(sha256(wrong));
    // The URL was not used up by the failed attempt.
    expect((await rawPut(url, file)).status).toBe(200);
    expect((await providerRow(d, 'up', '3.0.0')).blob_sha256).toBe(sha256(file));
  });

  it('refuses a body shorter than its Content-Length (connection dropped)', async () => {
    const api = await hostedProvider(alice.http, 'alice', 'up', '3.0.1');
    const url = (await alice.http.get(`${api}/upload`)).json.upload_path;
    const part = randomBytes(10_000);
    const before = await storedBlobs(d);
    await truncatedPut(url, 1_000_000, part);
    const providerId = (await providerRow(d, 'up', '3.0.1')).id;
    await waitFor(async () => {
      const s = await d.deps.db
        .selectFrom('upload_sessions')
        .select('state')
        .where('provider_id', '=', providerId)
        .executeTakeFirstOrThrow();
      return s.state === 'open';
    });
    expect((await providerRow(d, 'up', '3.0.1')).blob_sha256).toBeNull();
    expect(await storedBlobs(d)).toEqual(before);
    expect(await stagedUploads(d)).toEqual([]);
  });

  it('lets a newer PUT take over a URL from one still streaming: the older is cut off and its bytes discarded', async () => {
    const api = await hostedProvider(alice.http, 'alice', 'up', '3.0.2');
    const url = (await alice.http.get(`${api}/upload`)).json.upload_path;
    const stalledFile = randomBytes(20_000);
    const slow = new Readable({
      read() {
        /* pushed by the test */
      },
    });
    const first = rawPut(url, slow, { 'content-length': String(stalledFile.length) }).then(
      (r) => r.status,
      (err: NodeJS.ErrnoException) => err.code,
    );
    slow.push(stalledFile.subarray(0, 10_000));
    const providerId = (await providerRow(d, 'up', '3.0.2')).id;
    const session = () =>
      d.deps.db
        .selectFrom('upload_sessions')
        .selectAll()
        .where('provider_id', '=', providerId)
        .executeTakeFirstOrThrow();
    await waitFor(async () => (await session()).state === 'receiving');
    const olderReceiver = (await session()).receiver;
    // Its bytes are staged under its own name (in a bucket: parts of its open multipart upload).
    expect(await stagedUploads(d)).toEqual((await storesInBucket(d.dataDir)) ? [] : [olderReceiver]);

    const file = randomBytes(30_000);
    const second = await rawPut(url, file);
    expect(second.status).toBe(200);
    expect(await first).toBe('ECONNRESET');
    expect(await providerRow(d, 'up', '3.0.2')).toMatchObject({ blob_sha256: sha256(file), size: file.length });
    expect(await session()).toMatchObject({ state: 'done', receiver: null });
    expect(await storedBlobs(d)).not.toContain(sha256(stalledFile));
    await waitFor(async () => (await stagedUploads(d)).length === 0);
    expect((await rawPut(url, file)).status).toBe(404);
  });

  it('lets a newer PUT take over a direct upload URL too; the callback attaches the newer file', async () => {
    const api = await hostedProvider(alice.http, 'alice', 'up', '3.0.3');
    const prep = (await alice.http.get(`${api}/upload/direct`)).json;
    const slow = new Readable({
      read() {
        /* pushed by the test */
      },
    });
    const first = rawPut(prep.upload_path, slow, { 'content-length': '20000' }).then(
      (r) => r.status,
      (err: NodeJS.ErrnoException) => err.code,
    );
    slow.push(randomBytes(5_000));
    const providerId = (await providerRow(d, 'up', '3.0.3')).id;
    await waitFor(
      async () =>
        (
          await d.deps.db
            .selectFrom('upload_sessions')
            .select('state')
            .where('provider_id', '=', providerId)
            .executeTakeFirstOrThrow()
        ).state === 'receiving',
    );
    const file = randomBytes(12_000);
    expect((await rawPut(prep.upload_path, file)).status).toBe(200);
    expect(await first).toBe('ECONNRESET');
    expect((await alice.http.put(new URL(prep.callback).pathname)).status).toBe(200);
    expect(await providerRow(d, 'up', '3.0.3')).toMatchObject({ blob_sha256: sha256(file), size: file.length });
  });

  it('answers 404 for an unknown upload URL', async () => {
    const r = await rawPut(`${d.url}/uploads/${'x'.repeat(43)}`, Buffer.from('data'));
    expect(r.status).toBe(404);
    const junk = await rawPut(`${d.url}/uploads/..%2F..%2Fetc`, Buffer.from('data'));
    expect(junk.status).toBe(404);
  });

  it('refuses a stale URL before the body is sent when the client expects 100-continue', async () => {
    const r = await rawPut(`${d.url}/uploads/${'y'.repeat(43)}`, randomBytes(1_000_000), {
      expect: '100-continue',
      'content-length': '1000000',
    });
    expect(r.status).toBe(404);
    expect(r.continued).toBe(false);
    expect(JSON.parse(r.text).success).toBe(false);
  });
});

describe('upload URLs and the token that made them', () => {
  /** A second token of alice's, as `vagrant cloud auth login` would make. */
  async function freshToken(): Promise<HttpClient> {
    const r = await d.http.post('/api/v1/authenticate', { user: { login: 'alice', password: 'alice-password' } });
    expect(r.status, r.text).toBe(200);
    return d.http.withToken(r.json.token);
  }

  it('refuses the PUT (403, nothing stored, no 100 Continue) once the token is revoked', async () => {
    const api = await hostedProvider(alice.http, 'alice', 'up', '5.0.0');
    const other = await freshToken();
    const url = (await other.get(`${api}/upload`)).json.upload_path;
    const kept = (await alice.http.get(`${api}/upload`)).json.upload_path;
    expect((await other.delete('/api/v1/authenticate')).status).toBe(204);
    const before = await storedBlobs(d);

    const file = randomBytes(50_000);
    const put = await rawPut(url, file, { expect: '100-continue', 'content-length': String(file.length) });
    expect(put.status).toBe(403);
    expect(put.continued).toBe(false);
    expect(JSON.parse(put.text)).toEqual({
      errors: [expect.stringMatching(/token that has since been revoked.*Ask for a new one/)],
      success: false,
      code: 'forbidden',
    });
    expect((await rawPut(url, file)).status).toBe(403);
    expect((await providerRow(d, 'up', '5.0.0')).blob_sha256).toBeNull();
    expect(await storedBlobs(d)).toEqual(before);
    expect(await stagedUploads(d)).toEqual([]);

    // A URL made by a token that still works is not touched.
    expect((await rawPut(kept, file)).status).toBe(200);
    expect((await providerRow(d, 'up', '5.0.0')).blob_sha256).toBe(sha256(file));
  });

  it('refuses a direct upload URL whose token was revoked through the tokens API', async () => {
    const api = await hostedProvider(alice.http, 'alice', 'up', '5.0.1');
    const other = await freshToken();
    const prep = (await other.get(`${api}/upload/direct`)).json;
    const listed = (await alice.http.get('/api/boxyard/tokens')).json.tokens as Array<{ id: string }>;
    const session = await d.deps.db
      .selectFrom('upload_sessions')
      .select('token_id')
      .where('provider_id', '=', (await providerRow(d, 'up', '5.0.1')).id)
      .executeTakeFirstOrThrow();
    expect(listed.map((t) => t.id)).toContain(session.token_id);
    expect((await alice.http.delete(`/api/boxyard/tokens/${session.token_id}`)).status).toBe(204);
    const put = await rawPut(prep.upload_path, randomBytes(1000));
    expect(put.status).toBe(403);
    expect((await alice.http.put(new URL(prep.callback).pathname)).status).toBe(422);
  });
});

async function waitFor(check: () => Promise<boolean>, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('condition not met in time');
}
