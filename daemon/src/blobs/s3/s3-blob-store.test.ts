import { ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3Server, type S3Engine, type TestS3 } from '../../../../test/helpers/s3-server';
import { SizeMismatchError } from '../blob-store';
import { blobStoreContract, hex } from '../blob-store.contract';
import { s3ClientFor } from './bucket';
import { parseS3Location } from './location';
import { ObjectStoreError } from './s3-errors';
import { S3BlobStore } from './s3-blob-store';
import { present } from '../../lib/invariant';

/*
 * The S3 store through the real AWS SDK against two S3-protocol servers on 127.0.0.1: s3rver (npm)
 * and moto_server (Python moto, in the machine image). Calls s3rver lacks (AbortMultipartUpload,
 * ListMultipartUploads, UploadPartCopy) are tested on moto in s3-multipart.test.ts.
 */

const MiB = 1024 * 1024;
const servers = new Map<S3Engine, { s3: TestS3; client: S3Client }>();
let next = 0;

beforeAll(async () => {
  for (const engine of ['s3rver', 'moto'] as const) {
    const s3 = await startS3Server({ engine });
    servers.set(engine, { s3, client: s3ClientFor(parseS3Location(s3.url()), { credentials: s3.credentials }) });
  }
});
afterAll(async () => {
  for (const { s3, client } of servers.values()) {
    client.destroy();
    await s3.close();
  }
});
const server = (engine: S3Engine) => present(servers.get(engine), `beforeAll starts a ${engine} server`);

/** A store on a prefix of its own (an empty store, as the API suite gives each test). */
function storeOn(engine: S3Engine): S3BlobStore {
  const { s3, client } = server(engine);
  return new S3BlobStore(client, parseS3Location(s3.url(`t${++next}/yard`)));
}

async function keys(engine: S3Engine, store: S3BlobStore): Promise<string[]> {
  const { s3, client } = server(engine);
  const res = await client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: store.location.prefix }));
  return (res.Contents ?? [])
    .map((o) => o.Key?.slice(store.location.prefix.length) ?? '(an object without a Key)')
    .sort();
}

/** `size` bytes of a repeating pattern, in 64 KiB chunks (as a socket delivers them). */
function patterned(size: number): { body: () => Readable; bytes: Buffer } {
  const bytes = Buffer.alloc(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 31 + (i >> 12)) & 0xff;
  return {
    bytes,
    body: () =>
      Readable.from(
        (function* () {
          for (let at = 0; at < size; at += 64 * 1024) yield bytes.subarray(at, at + 64 * 1024);
        })(),
      ),
  };
}

for (const engine of ['s3rver', 'moto'] as const) {
  blobStoreContract(`S3BlobStore on ${engine}`, async () => storeOn(engine));

  describe(`S3BlobStore on ${engine}`, () => {
    it('stages at PREFIX/uploads/<id> and commits to PREFIX/blobs/sha256/ab/<hex>', async () => {
      const store = storeOn(engine);
      const staged = await store.write('up1', Readable.from(['hello box']));
      expect(await keys(engine, store)).toEqual(['uploads/up1']);
      await store.commit(staged);
      expect(await keys(engine, store)).toEqual([`blobs/sha256/${staged.sha256.slice(0, 2)}/${staged.sha256}`]);
    });

    it('streams a body of several parts, hashing it on the way', async () => {
      const store = storeOn(engine);
      const { body, bytes } = patterned(20 * MiB + 5);
      const staged = await store.write('big', body(), { expectedSize: bytes.length, algorithms: ['md5'] });
      expect(staged).toMatchObject({
        size: bytes.length,
        sha256: hex('sha256', bytes),
        digests: { md5: hex('md5', bytes) },
      });
      const ref = await store.commit(staged);
      const back = Buffer.from(
        await new Response(Readable.toWeb(store.read(ref.sha256)) as ReadableStream).arrayBuffer(),
      );
      expect(back.equals(bytes)).toBe(true);
      expect(await text(store.read(ref.sha256, { start: 8 * MiB - 2, end: 8 * MiB + 1 }))).toBe(
        bytes.subarray(8 * MiB - 2, 8 * MiB + 2).toString(),
      );
    });

    it('refuses a multipart body shorter than declared and stores nothing', async () => {
      const store = storeOn(engine);
      const { body, bytes } = patterned(17 * MiB);
      await expect(store.write('short', body(), { expectedSize: bytes.length + 1 })).rejects.toEqual(
        new SizeMismatchError(bytes.length + 1, bytes.length),
      );
      expect(await keys(engine, store)).toEqual([]);
    });

    it('answers a presigned GET URL, valid 5 minutes, that plain fetch downloads', async () => {
      const store = storeOn(engine);
      const { sha256 } = await store.commit(await store.write('dl', Readable.from(['box bytes'])));
      const url = new URL(await store.downloadUrl(sha256));
      expect(url.origin).toBe(server(engine).s3.endpoint);
      expect(url.searchParams.get('X-Amz-Expires')).toBe('300');
      const res = await fetch(url);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('box bytes');
      const ranged = await fetch(url, { headers: { Range: 'bytes=4-8' } });
      expect(ranged.status).toBe(206);
      expect(await ranged.text()).toBe('bytes');
    });
  });
}

describe('S3BlobStore on s3rver only', () => {
  it('names the bucket and endpoint, never the secret, when s3rver refuses the credentials (moto accepts any)', async () => {
    const { s3 } = server('s3rver');
    const loc = parseS3Location(s3.url('x'));
    const client = s3ClientFor(loc, { credentials: { accessKeyId: 'WRONGKEY', secretAccessKey: 'very-secret-value' } });
    try {
      const err = await new S3BlobStore(client, loc).stat(hex('sha256', 'x')).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ObjectStoreError);
      const message = (err as Error).message;
      expect(message).toContain(`bucket "${s3.bucket}"`);
      expect(message).toContain(s3.endpoint);
      expect(message).toContain('AWS_ACCESS_KEY_ID');
      expect(message).not.toContain('very-secret-value');
    } finally {
      client.destroy();
    }
  });

  it('downloads under the given file name from a presigned URL', async () => {
    // moto ignores response-content-disposition; S3, MinIO and s3rver honour it.
    const store = storeOn('s3rver');
    const { sha256 } = await store.commit(await store.write('dl', Readable.from(['box bytes'])));
    const res = await fetch(await store.downloadUrl(sha256, 'hashicorp vagrant-1.0.box'));
    expect(res.headers.get('content-disposition')).toBe(
      'attachment; filename="hashicorp_vagrant-1.0.box"; filename*=UTF-8\'\'hashicorp%20vagrant-1.0.box',
    );
  });

  it('reports that s3rver cannot list multipart uploads when sweeping, naming bucket and endpoint', async () => {
    const store = storeOn('s3rver');
    const { s3 } = server('s3rver');
    const err = await store.sweepMultipart(new Date()).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ObjectStoreError);
    expect(err).toMatchObject({ code: 'NotImplemented' });
    expect((err as Error).message).toContain(
      `S3 ListMultipartUploads of "${store.location.prefix}" in bucket "${s3.bucket}" at ${s3.endpoint} failed`,
    );
  });
});

describe('S3BlobStore with no server', () => {
  it('names the bucket and endpoint when the endpoint refuses connections', async () => {
    const loc = parseS3Location('s3://boxes/p?endpoint=http://127.0.0.1:9');
    const client = s3ClientFor(loc, {
      credentials: { accessKeyId: 'k', secretAccessKey: 'very-secret-value' },
      maxAttempts: 1,
    });
    try {
      const err = await new S3BlobStore(client, loc).stat(hex('sha256', 'x')).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ObjectStoreError);
      expect((err as Error).message).toMatch(
        /^S3 HeadObject of "p\/blobs\/sha256\/[0-9a-f]{2}\/[0-9a-f]{64}" in bucket "boxes" at http:\/\/127\.0\.0\.1:9 failed: ECONNREFUSED/,
      );
      expect((err as Error).message).toContain('Check that the endpoint');
      expect((err as Error).message).not.toContain('very-secret-value');
    } finally {
      client.destroy();
    }
  });
});
