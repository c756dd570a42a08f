import { createHash, createHmac } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3Server, type TestS3 } from '../../../../test/helpers/s3-server';
import { hex } from '../blob-store.contract';
import { s3ClientFor } from './bucket';
import { parseS3Location } from './location';
import { S3BlobStore } from './s3-blob-store';

/*
 * Presigned download URLs for a public endpoint (`public_endpoint=`), while every other call goes
 * to `endpoint`. s3rver 3.7.1 does not check SigV4 signatures at all ("Signature version 4
 * calculation is unimplemented" in its authentication.js) and moto checks none by default, so
 * besides downloading through the URL the test checks its signature the way S3 does.
 */

const sha256 = (data: string) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();
/** SigV4's URI encoding: encodeURIComponent plus the characters it leaves alone but RFC 3986 reserves. */
const uriEncode = (s: string) =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * Whether a presigned GET URL's SigV4 signature holds for the host it names (AWS's "Authenticating
 * requests: using query parameters"): the canonical request (method, path, sorted query without
 * the signature, the signed host header, UNSIGNED-PAYLOAD), signed with the key derived from the
 * secret, date, region and service.
 */
function signatureHolds(url: URL, secret: string): boolean {
  const p = url.searchParams;
  const query = [...p]
    .filter(([k]) => k !== 'X-Amz-Signature')
    .map(([k, v]) => `${uriEncode(k)}=${uriEncode(v)}`)
    .sort()
    .join('&');
  if (p.get('X-Amz-SignedHeaders') !== 'host') throw new Error(`signed headers: ${p.get('X-Amz-SignedHeaders')}`);
  const canonical = ['GET', url.pathname, query, `host:${url.host}`, '', 'host', 'UNSIGNED-PAYLOAD'].join('\n');
  const credential = p.get('X-Amz-Credential');
  if (!credential) throw new Error('the URL has no X-Amz-Credential');
  const [, date, region, service, terminator] = credential.split('/');
  const toSign = [
    'AWS4-HMAC-SHA256',
    p.get('X-Amz-Date'),
    [date, region, service, terminator].join('/'),
    sha256(canonical),
  ].join('\n');
  const key = [date, region, service, terminator].reduce<string | Buffer>((k, part) => hmac(k, part), `AWS4${secret}`);
  return hmac(key, toSign).toString('hex') === p.get('X-Amz-Signature');
}

let s3: TestS3;
let next = 0;
beforeAll(async () => {
  s3 = await startS3Server({ engine: 's3rver' });
});
afterAll(async () => {
  await s3.close();
});

describe('S3BlobStore presigned URLs for a public endpoint', () => {
  // Both names reach s3rver on 127.0.0.1: the daemons use one, the clients the other.
  it.each([
    ['localhost', '127.0.0.1'],
    ['127.0.0.1', 'localhost'],
  ])(
    'daemons on %s, clients on %s: the URL names and is signed for the public one, and plain fetch downloads it',
    async (internal, external) => {
      const port = new URL(s3.endpoint).port;
      const loc = parseS3Location(
        `s3://${s3.bucket}/pub${++next}?endpoint=http://${internal}:${port}&public_endpoint=http://${external}:${port}`,
      );
      const client = s3ClientFor(loc, { credentials: s3.credentials });
      try {
        const store = new S3BlobStore(client, loc);
        const { sha256: digest } = await store.commit(await store.write('dl', Readable.from(['public bytes'])));
        const url = new URL(await store.downloadUrl(digest, 'my.box'));
        expect(url.origin).toBe(`http://${external}:${port}`);
        expect(url.pathname).toBe(`/${s3.bucket}/${loc.prefix}blobs/sha256/${digest.slice(0, 2)}/${digest}`);
        expect(signatureHolds(url, s3.credentials.secretAccessKey)).toBe(true);
        const res = await fetch(url);
        expect(res.status).toBe(200);
        expect(await res.text()).toBe('public bytes');
        expect(res.headers.get('content-disposition')).toBe('attachment; filename="my.box"; filename*=UTF-8\'\'my.box');
        // The same URL under the daemons' name is not one S3 would accept.
        const internalUrl = new URL(url);
        internalUrl.hostname = internal;
        expect(signatureHolds(internalUrl, s3.credentials.secretAccessKey)).toBe(false);
      } finally {
        client.destroy();
      }
    },
  );

  it('without a public endpoint, signs for the endpoint the daemons use', async () => {
    const loc = parseS3Location(s3.url(`pub${++next}`));
    const client = s3ClientFor(loc, { credentials: s3.credentials });
    try {
      const store = new S3BlobStore(client, loc);
      const { sha256: digest } = await store.commit(await store.write('dl', Readable.from(['internal bytes'])));
      const url = new URL(await store.downloadUrl(digest));
      expect(url.origin).toBe(s3.endpoint);
      expect(signatureHolds(url, s3.credentials.secretAccessKey)).toBe(true);
    } finally {
      client.destroy();
    }
  });

  it('signs for a public endpoint with a path, path-style, with the same keys and region (no network needed)', async () => {
    const loc = parseS3Location(
      's3://boxes/p?endpoint=http://minio:9000&public_endpoint=https://s3.example.org/store&region=eu-west-1',
    );
    const client = s3ClientFor(loc, { credentials: { accessKeyId: 'KEYID', secretAccessKey: 'very-secret-value' } });
    try {
      const digest = hex('sha256', 'x');
      const url = new URL(await new S3BlobStore(client, loc).downloadUrl(digest));
      expect(url.origin).toBe('https://s3.example.org');
      expect(url.pathname).toBe(`/store/boxes/p/blobs/sha256/${digest.slice(0, 2)}/${digest}`);
      expect(url.searchParams.get('X-Amz-Credential')).toMatch(/^KEYID\/\d{8}\/eu-west-1\/s3\/aws4_request$/);
      expect(url.searchParams.get('X-Amz-Expires')).toBe('300');
      expect(signatureHolds(url, 'very-secret-value')).toBe(true);
    } finally {
      client.destroy();
    }
  });
});
