import { CreateMultipartUploadCommand, ListMultipartUploadsCommand, type S3Client } from '@aws-sdk/client-s3';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3Server, type S3Engine, type TestS3 } from '../../../../test/helpers/s3-server';
import { SizeMismatchError } from '../blob-store';
import { collect, hex } from '../blob-store.contract';
import { s3ClientFor } from './bucket';
import { parseS3Location } from './location';
import { S3BlobStore } from './s3-blob-store';
import { present } from '../../lib/invariant';

/*
 * Multipart uploads that must not outlive a failure, the sweeper, and copies part by part: on
 * moto_server, which has AbortMultipartUpload, ListMultipartUploads and UploadPartCopy (s3rver
 * 3.7.1 has none of them). Calls are recorded by a middleware on the real client.
 */

const MiB = 1024 * 1024;
const servers = new Map<S3Engine, { s3: TestS3; client: S3Client; calls: string[] }>();
let next = 0;

beforeAll(async () => {
  for (const engine of ['moto', 's3rver'] as const) {
    const s3 = await startS3Server({ engine });
    const client = s3ClientFor(parseS3Location(s3.url()), { credentials: s3.credentials });
    const calls: string[] = [];
    client.middlewareStack.add(
      (nextHandler, context) => (args) => {
        calls.push(context.commandName ?? '?');
        return nextHandler(args);
      },
      { step: 'initialize', name: 'recordCalls' },
    );
    servers.set(engine, { s3, client, calls });
  }
});
afterAll(async () => {
  for (const { s3, client } of servers.values()) {
    client.destroy();
    await s3.close();
  }
});
const server = (engine: S3Engine) => present(servers.get(engine), `beforeAll starts a ${engine} server`);

function storeOn(engine: S3Engine, opts: ConstructorParameters<typeof S3BlobStore>[2] = {}): S3BlobStore {
  const { s3, client, calls } = server(engine);
  calls.length = 0;
  return new S3BlobStore(client, parseS3Location(s3.url(`m${++next}`)), opts);
}

async function openUploads(engine: S3Engine, prefix: string): Promise<string[]> {
  const { s3, client } = server(engine);
  const res = await client.send(new ListMultipartUploadsCommand({ Bucket: s3.bucket, Prefix: prefix }));
  return (res.Uploads ?? []).map((u) => u.Key?.slice(prefix.length) ?? '(an upload without a Key)').sort();
}

async function begin(engine: S3Engine, key: string): Promise<void> {
  const { s3, client } = server(engine);
  await client.send(new CreateMultipartUploadCommand({ Bucket: s3.bucket, Key: key }));
}

/** `bytes` bytes in 1 MiB chunks, then a failure, as a connection reset mid-upload. */
function failsAfter(bytes: number): Readable {
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= bytes) return this.destroy(new Error('connection reset'));
      const n = Math.min(MiB, bytes - sent);
      sent += n;
      this.push(Buffer.alloc(n, sent & 0xff));
    },
  });
}

describe('multipart uploads on moto', () => {
  it("aborts the multipart upload of a body that fails after two parts, and rejects with the body's error", async () => {
    const store = storeOn('moto');
    await expect(store.write('broken', failsAfter(17 * MiB), { expectedSize: 40 * MiB })).rejects.toThrow(
      'connection reset',
    );
    const { calls } = server('moto');
    expect(calls.filter((c) => c === 'UploadPartCommand').length).toBeGreaterThanOrEqual(1);
    expect(calls).toContain('AbortMultipartUploadCommand');
    expect(await openUploads('moto', store.location.prefix)).toEqual([]);
    expect(await collect(store.listStaged())).toEqual([]);
  });

  it('aborts the multipart upload of a body shorter than declared: nothing staged, no upload open', async () => {
    const short = storeOn('moto');
    const body = Readable.from(
      (function* () {
        for (let i = 0; i < 20; i++) yield Buffer.alloc(MiB, i);
      })(),
    );
    await expect(short.write('short', body, { expectedSize: 30 * MiB })).rejects.toEqual(
      new SizeMismatchError(30 * MiB, 20 * MiB),
    );
    expect(server('moto').calls).toContain('AbortMultipartUploadCommand');
    expect(await openUploads('moto', short.location.prefix)).toEqual([]);
    expect(await collect(short.listStaged())).toEqual([]);
  });

  it('discard deletes the staging object and aborts an upload still open on its key', async () => {
    const store = storeOn('moto');
    await store.write('gone', Readable.from(['staged']));
    await begin('moto', `${store.location.prefix}uploads/gone`);
    await begin('moto', `${store.location.prefix}uploads/other`);
    await store.discard('gone');
    expect(await collect(store.listStaged())).toEqual([]);
    expect(await openUploads('moto', store.location.prefix)).toEqual(['uploads/other']);
  });

  it('sweeps the multipart uploads under its prefix begun before the cutoff, and only those', async () => {
    // moto reports every upload as initiated at 2010-11-10T20:48:33Z, so "fresh" is a cutoff before that.
    const store = storeOn('moto');
    const { prefix } = store.location;
    await begin('moto', `${prefix}uploads/crashed`);
    await begin('moto', `${prefix}blobs/sha256/ab/copy-in-parts`);
    await begin('moto', `elsewhere-${prefix}uploads/not-ours`);
    expect(await store.sweepMultipart(new Date('2010-01-01T00:00:00Z'))).toBe(0);
    expect(await openUploads('moto', prefix)).toEqual(['blobs/sha256/ab/copy-in-parts', 'uploads/crashed']);
    expect(await store.sweepMultipart(new Date())).toBe(2);
    expect(await openUploads('moto', prefix)).toEqual([]);
    expect(await openUploads('moto', `elsewhere-${prefix}`)).toEqual(['uploads/not-ours']);
  });

  it('commits above the single-copy limit part by part with UploadPartCopy', async () => {
    // The 5 GiB limit lowered to 5 MiB: 12 MiB copy in 3 parts of at least 5 MiB (moto enforces S3's minimum).
    const store = storeOn('moto', { copyLimits: { singleMax: 5 * MiB, minPart: 5 * MiB } });
    const bytes = Buffer.alloc(12 * MiB);
    for (let i = 0; i < bytes.length; i += 4096) bytes.writeUInt32BE(i, i);
    const ref = await store.commit(await store.write('parts', Readable.from([bytes]), { expectedSize: bytes.length }));
    const { calls } = server('moto');
    expect(calls.filter((c) => c === 'UploadPartCopyCommand')).toHaveLength(3);
    expect(calls).not.toContain('CopyObjectCommand');
    const back = Buffer.concat((await collect(store.read(ref.sha256))) as Buffer[]);
    expect(hex('sha256', back)).toBe(ref.sha256);
    expect(await openUploads('moto', store.location.prefix)).toEqual([]);
    expect(await collect(store.listStaged())).toEqual([]);
  });

  it('a re-commit and a reuse mark a stored blob fresh (a new LastModified)', async () => {
    const store = storeOn('moto');
    const a = await store.commit(await store.write('a1', Readable.from(['recommitted'])));
    const b = await store.commit(await store.write('b1', Readable.from(['reused'])));
    const times = async () => new Map((await collect(store.list())).map((x) => [x.sha256, x.modifiedAt.getTime()]));
    const before = await times();
    // LastModified has whole seconds: wait for the server's clock (this machine's) to pass the next one.
    const newest = Math.max(...before.values());
    await new Promise((r) => setTimeout(r, Math.max(0, newest + 1000 - Date.now() + 5)));
    await store.commit(await store.write('a2', Readable.from(['recommitted'])));
    expect(await store.reuse(b.sha256)).toEqual(b);
    const after = await times();
    const listed = (times: Map<string, number>, sha256: string) => present(times.get(sha256), `${sha256} is listed`);
    expect(listed(after, a.sha256)).toBeGreaterThan(listed(before, a.sha256));
    expect(listed(after, b.sha256)).toBeGreaterThan(listed(before, b.sha256));
  });
});

describe('multipart uploads on s3rver (no AbortMultipartUpload)', () => {
  it("still rejects with the body's error when the abort is refused (its parts are left to the sweeper)", async () => {
    const store = storeOn('s3rver');
    await expect(store.write('broken', failsAfter(17 * MiB), { expectedSize: 40 * MiB })).rejects.toThrow(
      'connection reset',
    );
    expect(server('s3rver').calls).toContain('AbortMultipartUploadCommand');
    expect(await collect(store.listStaged())).toEqual([]);
  });

  it('discards a staging object although it cannot list the uploads open on its key', async () => {
    const store = storeOn('s3rver');
    await store.write('gone', Readable.from(['staged']));
    await store.discard('gone');
    expect(await collect(store.listStaged())).toEqual([]);
  });
});
