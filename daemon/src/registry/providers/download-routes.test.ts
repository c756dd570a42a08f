import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import Koa from 'koa';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3Server, type TestS3 } from '../../../../test/helpers/s3-server';
import { s3ClientFor } from '../../blobs/s3/bucket';
import { parseS3Location } from '../../blobs/s3/location';
import { S3BlobStore } from '../../blobs/s3/s3-blob-store';
import { downloadRoutes, type DownloadRouteDeps } from './download-routes';

/*
 * Downloads from an S3 store with --blobs-redirect: the route on its own (the registry answers one
 * provider whose file is stored; the store is real, on s3rver through the AWS SDK).
 */

const PATH = '/acme/boxes/web/versions/1.0.0/providers/virtualbox/amd64/vagrant.box';
const BYTES = 'the box file bytes';

describe('download route with an S3 store', () => {
  let s3: TestS3;
  let client: ReturnType<typeof s3ClientFor>;
  let store: S3BlobStore;
  let sha256: string;
  const counted: string[] = [];
  const servers: Server[] = [];

  beforeAll(async () => {
    s3 = await startS3Server();
    const loc = parseS3Location(s3.url('routes'));
    client = s3ClientFor(loc, { credentials: s3.credentials });
    store = new S3BlobStore(client, loc);
    ({ sha256 } = await store.commit(await store.write('up', Readable.from([BYTES]))));
  });
  afterAll(async () => {
    for (const s of servers) await new Promise((r) => s.close(r));
    client.destroy();
    await s3.close();
  });

  async function serve(blobsRedirect: boolean): Promise<string> {
    const registry = {
      resolveProvider: async () => ({ box: { id: 'box1' }, provider: { id: 'prov1', blob_sha256: sha256, url: null } }),
      countDownload: async (boxId: string, providerId?: string) => {
        counted.push(`${boxId}/${providerId}`);
      },
    } as unknown as DownloadRouteDeps['registry'];
    const app = new Koa();
    app.use(
      downloadRoutes({ registry, blobStore: store, config: { blobsRedirect }, log: pino({ enabled: false }) }).routes(),
    );
    const server = createServer(app.callback());
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}${PATH}`;
  }

  /** Waits for the count a response's 'finish' triggers (it runs after the client has the response). */
  const countedSoon = async (n: number) => {
    while (counted.length < n) await new Promise((r) => setImmediate(r));
  };

  it('answers a whole-file GET with a 302 to a presigned URL that downloads the file, and counts it', async () => {
    counted.length = 0;
    const url = await serve(true);
    const res = await fetch(url, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const location = new URL(res.headers.get('location') ?? 'about:no-location');
    expect(location.origin).toBe(s3.endpoint);
    expect(location.searchParams.get('X-Amz-Expires')).toBe('300');
    const followed = await fetch(location);
    expect(followed.status).toBe(200);
    expect(await followed.text()).toBe(BYTES);
    await countedSoon(1);
    expect(counted).toEqual(['box1/prov1']);
  });

  it('keeps answering HEAD and Range requests itself', async () => {
    counted.length = 0;
    const url = await serve(true);
    const head = await fetch(url, { method: 'HEAD', redirect: 'manual' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(BYTES.length));
    expect(head.headers.get('etag')).toBe(`"${sha256}"`);
    const ranged = await fetch(url, { headers: { Range: 'bytes=4-7' }, redirect: 'manual' });
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get('content-range')).toBe(`bytes 4-7/${BYTES.length}`);
    expect(await ranged.text()).toBe('box ');
    const tail = await fetch(url, { headers: { Range: 'bytes=4-' }, redirect: 'manual' });
    expect(tail.status).toBe(206);
    expect(await tail.text()).toBe(BYTES.slice(4));
    await countedSoon(1);
    expect(counted).toEqual(['box1/prov1']);
  });

  it('streams through the daemon when redirects are off', async () => {
    counted.length = 0;
    const res = await fetch(await serve(false), { redirect: 'manual' });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(BYTES);
    await countedSoon(1);
    expect(counted).toEqual(['box1/prov1']);
  });
});
