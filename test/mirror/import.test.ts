import { createHash, randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { pack } from 'tar-stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient } from '../helpers/http';
import { providerRow, stagedUploads, storedBlobs } from '../helpers/blobs';
import { snapshot } from '../helpers/registry';
import { sha256 } from '../helpers/mirror';
import { rawGet, rawPut } from '../helpers/upload';
import { makeBoxFile } from '../helpers/vagrant';
import { UNSTATED_ARCHITECTURE } from '../../daemon/src/contract/box-metadata';

let d: TestDaemon;
let alice: { token: string; http: HttpClient };
let bob: { token: string; http: HttpClient };
let tmp: string;

beforeAll(async () => {
  d = await startTestDaemon();
  alice = await d.user('alice', { orgs: ['lab'] });
  bob = await d.user('bob');
  tmp = mkdtempSync(join(tmpdir(), 'boxyard-import-'));
});
afterAll(async () => {
  await d.stop();
  rmSync(tmp, { recursive: true, force: true });
});

const importUrl = (path: string, query: Record<string, string> = {}) => {
  const q = new URLSearchParams(query).toString();
  return `${d.url}/api/boxyard/import/${path}${q ? `?${q}` : ''}`;
};

/** PUTs a file to the import endpoint with Content-Length and the token (unless `token` is null). */
async function putImport(
  path: string,
  file: Buffer,
  query: Record<string, string> = {},
  token: string | null = alice.token,
) {
  const headers: Record<string, string> = {
    'content-length': String(file.length),
    'content-type': 'application/octet-stream',
  };
  if (token) headers.authorization = `Bearer ${token}`;
  const r = await rawPut(importUrl(path, query), file, headers);
  return { ...r, json: JSON.parse(r.text) };
}

let boxes = 0;
async function boxFile(provider = 'virtualbox', architecture?: string): Promise<Buffer> {
  return makeBoxFile(join(tmp, `b${++boxes}.box`), provider, 32 * 1024, architecture);
}

async function tarGz(files: Record<string, string | Buffer>): Promise<Buffer> {
  const t = pack();
  for (const [name, body] of Object.entries(files)) t.entry({ name }, body);
  t.finalize();
  const chunks: Buffer[] = [];
  for await (const c of t) chunks.push(c as Buffer);
  return gzipSync(Buffer.concat(chunks));
}

/** Announces `declared` bytes with the token, sends `sent`, then drops the connection (a client that died). */
function truncatedImport(path: string, declared: number, sent: Buffer): Promise<void> {
  const u = new URL(importUrl(path));
  return new Promise((resolve, reject) => {
    const socket = connect(Number(u.port), u.hostname, () => {
      socket.write(
        `PUT ${u.pathname} HTTP/1.1\r\nHost: ${u.host}\r\nAuthorization: Bearer ${alice.token}\r\nContent-Length: ${declared}\r\n\r\n`,
      );
      socket.write(sent, () => setTimeout(() => socket.destroy(), 100));
    });
    socket.on('close', () => resolve());
    socket.on('error', reject);
  });
}

/** Resolves with the staging id of the next discard, once the daemon has finished it. */
function nextDiscard(): Promise<string> {
  const store = d.deps.blobStore;
  const original = store.discard;
  return new Promise((resolve) => {
    store.discard = async (id: string) => {
      await original.call(store, id);
      store.discard = original;
      resolve(id);
    };
  });
}

const uploadsLeft = () => stagedUploads(d);

/** Everything a refused import must leave as it was. */
async function state() {
  return { rows: await snapshot(d), blobs: await storedBlobs(d) };
}

describe('PUT /api/boxyard/import/:username/:box/:version', () => {
  it('imports a .box with the provider and architecture from its metadata.json', async () => {
    const file = await boxFile('libvirt', 'arm64');
    const r = await putImport('lab/base/1.0.0', file);
    expect(r.status, r.text).toBe(200);
    expect(r.json).toEqual({
      import: {
        box: 'lab/base',
        version: '1.0.0',
        provider: 'libvirt',
        architecture: 'arm64',
        sha256: sha256(file),
        size: file.length,
        released: false,
      },
    });
    // Private by default, and not released: the owner sees it in the box API, nobody else does.
    const box = await alice.http.get('/api/v2/box/lab/base');
    expect(box.json).toMatchObject({
      private: true,
      versions: [
        {
          version: '1.0.0',
          status: 'unreleased',
          providers: [{ name: 'libvirt', architecture: 'arm64', checksum: sha256(file), checksum_type: 'sha256' }],
        },
      ],
    });
    expect((await d.http.get('/api/v2/box/lab/base')).status).toBe(404);
    expect(await uploadsLeft()).toEqual([]);
  });

  it('takes amd64 for a file that names no architecture (as the UI does), and adds providers to a version that exists', async () => {
    const file = await boxFile('vmware_desktop');
    const r = await putImport('lab/base/1.0.0', file);
    expect(r.status, r.text).toBe(200);
    expect(r.json.import).toMatchObject({ provider: 'vmware_desktop', architecture: UNSTATED_ARCHITECTURE });
    const v = await alice.http.get('/api/v2/box/lab/base/version/1.0.0');
    expect(v.json.providers.map((p: { name: string }) => p.name).sort()).toEqual(['libvirt', 'vmware_desktop']);
  });

  it('takes provider and architecture from the query over metadata.json, and verifies a declared checksum', async () => {
    const file = await boxFile('libvirt', 'arm64');
    const sha1 = createHash('sha1').update(file).digest('hex');
    const r = await putImport('lab/base/1.1.0', file, {
      provider: 'qemu',
      architecture: 'amd64',
      checksum: sha1.toUpperCase(),
      checksum_type: 'SHA1',
    });
    expect(r.status, r.text).toBe(200);
    expect(r.json.import).toMatchObject({ provider: 'qemu', architecture: 'amd64', sha256: sha256(file) });
    // The declared checksum is what the provider records; the API shows what the catalog
    // advertises and vagrant verifies: the sha256 computed here (registry/providers/checksums.ts).
    expect(await providerRow(d, 'base', '1.1.0', 'amd64', 'qemu')).toMatchObject({
      checksum: sha1,
      checksum_type: 'sha1',
      blob_sha256: sha256(file),
    });
    const v = await alice.http.get('/api/v2/box/lab/base/version/1.1.0');
    expect(v.json.providers).toEqual([
      expect.objectContaining({ name: 'qemu', architecture: 'amd64', checksum: sha256(file), checksum_type: 'sha256' }),
    ]);
  });

  it('accepts a file that is not a tar when the query names provider and architecture', async () => {
    const file = randomBytes(10_000);
    const r = await putImport('lab/raw/1.0.0', file, { provider: 'docker', architecture: 'amd64' });
    expect(r.status, r.text).toBe(200);
    expect(r.json.import).toMatchObject({ provider: 'docker', architecture: 'amd64', size: 10_000 });
  });

  it('publishes a released public box that vagrant finds in the catalog with its sha256', async () => {
    const file = await boxFile('virtualbox', 'amd64');
    const r = await putImport('lab/web/2.0.0', file, { release: 'true', private: 'false' });
    expect(r.status, r.text).toBe(200);
    expect(r.json.import).toMatchObject({ box: 'lab/web', released: true });
    const catalog = await d.http.get('/lab/web');
    expect(catalog.status).toBe(200);
    expect(catalog.json.versions).toEqual([
      expect.objectContaining({
        version: '2.0.0',
        status: 'active',
        providers: [
          expect.objectContaining({
            name: 'virtualbox',
            architecture: 'amd64',
            checksum: sha256(file),
            checksum_type: 'sha256',
          }),
        ],
      }),
    ]);
    const download = await rawGet(catalog.json.versions[0].providers[0].url);
    expect(download.status).toBe(200);
    expect(sha256(download.body)).toBe(sha256(file));
  });

  it('streams a chunked body (no Content-Length)', async () => {
    const file = await boxFile('hyperv');
    const r = await rawPut(
      importUrl('lab/chunked/1.0.0'),
      Readable.from([file.subarray(0, 1000), file.subarray(1000)]),
      { authorization: `Bearer ${alice.token}` },
    );
    expect(r.status, r.text).toBe(200);
    expect(JSON.parse(r.text).import).toMatchObject({ provider: 'hyperv', size: file.length, sha256: sha256(file) });
  });

  it('reports a version already released as released', async () => {
    const file = await boxFile('libvirt', 'amd64');
    const r = await putImport('lab/web/2.0.0', file);
    expect(r.status, r.text).toBe(200);
    expect(r.json.import).toMatchObject({ released: true, provider: 'libvirt' });
  });
});

describe('refused imports change nothing', () => {
  it('a wrong checksum: 422, no box, version or provider, no staged file', async () => {
    const before = await state();
    const file = await boxFile();
    const r = await putImport('lab/bad-sum/1.0.0', file, {
      checksum: sha256(Buffer.from('other')),
      checksum_type: 'sha256',
    });
    expect(r.status, r.text).toBe(422);
    expect(r.json).toEqual({
      success: false,
      errors: [
        expect.stringMatching(
          /^Checksum mismatch: the imported file's sha256 is [0-9a-f]{64}, but [0-9a-f]{64} was declared/,
        ),
      ],
      code: 'conflict',
    });
    expect(await state()).toEqual(before);
    expect(await uploadsLeft()).toEqual([]);
  });

  it('a body shorter than its Content-Length: 400 from the service, and nothing stored over HTTP', async () => {
    const before = await state();
    const file = await boxFile();
    const alicePrincipal = await d.deps.tokens.resolve(alice.token);
    const short = d.deps.imports.import(
      alicePrincipal,
      { username: 'lab', box: 'short', version: '1.0.0', release: true, private: false },
      Readable.from([file.subarray(0, 1000)]),
      file.length,
    );
    await expect(short).rejects.toMatchObject({
      code: 'bad_request',
      message: expect.stringMatching(/ended after 1000 of the \d+ bytes/),
    });
    // A client that dies mid-body gets no answer (its connection is gone); the daemon stores nothing.
    const discarded = nextDiscard();
    await truncatedImport('lab/short/1.0.0', file.length, file.subarray(0, 1000));
    expect(await discarded).toMatch(/^imp-/);
    expect(await state()).toEqual(before);
    expect(await uploadsLeft()).toEqual([]);
  });

  it.each([
    ['not a tar', () => randomBytes(20_000), /cannot be read: it is not a \.box file \(a tar or gzipped tar\)/],
    [
      'a gzipped tar without metadata.json',
      () => tarGz({ 'box.img': randomBytes(5000) }),
      /cannot be read: it holds no metadata.json/,
    ],
    [
      'metadata.json without a provider',
      () => tarGz({ 'metadata.json': '{"architecture":"amd64"}' }),
      /metadata.json names no provider/,
    ],
  ])('%s without ?provider=: 403', async (_name, make, message) => {
    const before = await state();
    const r = await putImport('lab/junk/1.0.0', await make());
    expect(r.status, r.text).toBe(403);
    expect(r.json.errors[0]).toMatch(message);
    expect(r.json.errors[0]).toMatch(/name the provider with \?provider=/);
    expect(await state()).toEqual(before);
    expect(await uploadsLeft()).toEqual([]);
  });

  it.each([
    [
      'an unknown architecture',
      () => boxFile('virtualbox', 'x86_64'),
      /names the architecture "x86_64", which vagrant/,
    ],
    [
      'a refused provider name',
      () => boxFile('../virtualbox'),
      /names the provider "..\/virtualbox", which is refused/,
    ],
    [
      'metadata.json larger than 64 KiB',
      () => tarGz({ 'metadata.json': JSON.stringify({ provider: 'virtualbox', pad: 'x'.repeat(70_000) }) }),
      /cannot be read: its metadata.json is larger than 64 KiB/,
    ],
    ['metadata.json not JSON', () => tarGz({ 'metadata.json': '{"provider":' }), /its metadata.json is not valid JSON/],
  ])('%s in metadata.json: 403, nothing made', async (_name, make, message) => {
    const before = await state();
    const r = await putImport('lab/junk/1.0.0', await make());
    expect(r.status, r.text).toBe(403);
    expect(r.json.errors[0]).toMatch(message);
    expect(await state()).toEqual(before);
    expect(await uploadsLeft()).toEqual([]);
  });

  it.each([
    ['a bad box name', 'lab/..%2Fetc/1.0.0', {}, /Box name/, 'validation'],
    ['a bad version', 'lab/ok/v1', {}, /Ruby Gem version/, 'validation'],
    ['a bad architecture', 'lab/ok/1.0.0', { architecture: 'x86_64' }, /Architecture "x86_64"/, 'validation'],
    ['a bad provider', 'lab/ok/1.0.0', { provider: '../virtualbox' }, /Provider "..\/virtualbox"/, 'validation'],
    [
      'a checksum of the wrong length',
      'lab/ok/1.0.0',
      { checksum: 'abc', checksum_type: 'sha256' },
      /64 hexadecimal/,
      'validation',
    ],
    [
      'an unknown checksum type',
      'lab/ok/1.0.0',
      { checksum: 'abc', checksum_type: 'crc32' },
      /checksum_type must be one of/,
      'validation',
    ],
    [
      'release that is not a flag',
      'lab/ok/1.0.0',
      { release: 'yes' },
      /release: must be true or false/,
      'bad_parameter',
    ],
  ])('%s: 403', async (_name, path, query, message, code) => {
    const before = await state();
    const r = await putImport(path, await boxFile(), query);
    expect(r.status, r.text).toBe(403);
    expect(r.json).toEqual({ success: false, errors: [expect.stringMatching(message)], code });
    expect(await state()).toEqual(before);
    expect(await uploadsLeft()).toEqual([]);
  });

  it('no token: 401; a revoked token: 401', async () => {
    const before = await state();
    const file = await boxFile();
    const none = await putImport('lab/anon/1.0.0', file, {}, null);
    expect(none.status).toBe(401);
    expect(none.json.errors[0]).toMatch(/Authentication required/);
    const bad = await putImport('lab/anon/1.0.0', file, {}, 'not-a-token');
    expect(bad.status).toBe(401);
    expect(await state()).toEqual(before);
  });

  it('a namespace the caller is not a member of: 403; one that does not exist: 404', async () => {
    const before = await state();
    const file = await boxFile();
    const r = await putImport('lab/bobs/1.0.0', file, {}, bob.token);
    expect(r.status).toBe(403);
    expect(r.json.errors[0]).toMatch(/may not change boxes of "lab"/);
    expect((await putImport('nobody/box/1.0.0', file)).status).toBe(404);
    expect(await state()).toEqual(before);
    expect(await uploadsLeft()).toEqual([]);
  });

  it('a provider and architecture the version already has: 422', async () => {
    const before = await state();
    const r = await putImport('lab/base/1.0.0', await boxFile('libvirt', 'arm64'));
    expect(r.status, r.text).toBe(422);
    expect(r.json.errors[0]).toMatch(/already has a provider "libvirt" for architecture "arm64"/);
    expect((await state()).rows).toEqual(before.rows);
    expect(await uploadsLeft()).toEqual([]);
  });

  it('never reads the body as JSON, whatever its Content-Type', async () => {
    const file = await boxFile('parallels');
    const r = await rawPut(importUrl('lab/json-typed/1.0.0'), file, {
      authorization: `Bearer ${alice.token}`,
      'content-type': 'application/json',
      'content-length': String(file.length),
    });
    expect(r.status, r.text).toBe(200);
    expect(JSON.parse(r.text).import).toMatchObject({ provider: 'parallels', sha256: sha256(file) });
  });
});
