import type { S3Client } from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3Server, type S3Engine, type TestS3 } from '../../../../test/helpers/s3-server';
import { s3ClientFor } from './bucket';
import { parseS3Location } from './location';
import { S3BlobStore } from './s3-blob-store';
import { present } from '../../lib/invariant';

/*
 * The S3 store's memory budget for upload parts, through the real AWS SDK on both test servers.
 * What the writes really buffer is observed on the client: the bytes of every UploadPart and
 * PutObject body in flight, added up by a middleware (a lower bound of what is held in memory).
 */

const MiB = 1024 * 1024;

interface Server {
  s3: TestS3;
  client: S3Client;
  inFlight: { now: number; max: number };
}
const servers = new Map<S3Engine, Server>();
let next = 0;

beforeAll(async () => {
  for (const engine of ['moto', 's3rver'] as const) {
    const s3 = await startS3Server({ engine });
    const client = s3ClientFor(parseS3Location(s3.url()), { credentials: s3.credentials });
    const inFlight = { now: 0, max: 0 };
    client.middlewareStack.add(
      (nextHandler) => async (args) => {
        const body = (args.input as { Body?: unknown }).Body;
        const bytes = body instanceof Uint8Array ? body.byteLength : 0;
        inFlight.now += bytes;
        inFlight.max = Math.max(inFlight.max, inFlight.now);
        try {
          return await nextHandler(args);
        } finally {
          inFlight.now -= bytes;
        }
      },
      { step: 'initialize', name: 'countPartBytes' },
    );
    servers.set(engine, { s3, client, inFlight });
  }
});
afterAll(async () => {
  for (const { s3, client } of servers.values()) {
    client.destroy();
    await s3.close();
  }
});
const server = (engine: S3Engine) => present(servers.get(engine), `beforeAll starts a ${engine} server`);

function storeOn(engine: S3Engine, uploadMemoryBytes: number): S3BlobStore {
  const { s3, client, inFlight } = server(engine);
  inFlight.max = 0;
  return new S3BlobStore(client, parseS3Location(s3.url(`mem${++next}`)), { uploadMemoryBytes });
}

/**
 * `size` bytes of `fill` in 1 MiB chunks that flow only once `open()` is called (at once with
 * `open: true`); `reads` counts the reads asked of it, `reading` resolves at the first one.
 * With `failAt`, the body fails as a connection reset once that many bytes are sent.
 */
function body(size: number, fill: number, opts: { open?: boolean; failAt?: number } = {}) {
  let started!: () => void;
  let open!: () => void;
  const reading = new Promise<void>((r) => {
    started = r;
  });
  const opened = new Promise<void>((r) => {
    open = r;
  });
  if (opts.open) open();
  const t = {
    reads: 0,
    reading,
    open,
    stream: undefined as unknown as Readable,
    sha256: createHash('sha256').update(Buffer.alloc(size, fill)).digest('hex'),
  };
  let sent = 0;
  t.stream = new Readable({
    read() {
      t.reads++;
      started();
      void opened.then(() => {
        if (opts.failAt !== undefined && sent >= opts.failAt) return this.destroy(new Error('connection reset'));
        const n = Math.min(MiB, size - sent);
        sent += n;
        this.push(n === 0 ? null : Buffer.alloc(n, fill));
      });
    },
  });
  return t;
}

for (const engine of ['moto', 's3rver'] as const) {
  describe(`S3BlobStore upload memory on ${engine}`, () => {
    it('never lets concurrent writes hold more than the budget, and completes them all', async () => {
      // 9 MiB each (one 8 MiB part and a 1 MiB one): two fit in 20 MiB, the others wait their turn.
      const store = storeOn(engine, 20 * MiB);
      const bodies = Array.from({ length: 6 }, (_, i) => body(9 * MiB, i, { open: true }));
      const writes = bodies.map((b, i) => store.write(`w${i}`, b.stream, { expectedSize: 9 * MiB }));
      expect({ held: store.uploadMemory.held, waiting: store.uploadMemory.waiting }).toEqual({
        held: 18 * MiB,
        waiting: 4,
      });
      const staged = await Promise.all(writes);
      expect(staged.map((s) => [s.size, s.sha256])).toEqual(bodies.map((b) => [9 * MiB, b.sha256]));
      expect(server(engine).inFlight.max).toBeGreaterThanOrEqual(8 * MiB);
      expect(server(engine).inFlight.max).toBeLessThanOrEqual(20 * MiB);
      expect(store.uploadMemory.peak).toBe(18 * MiB);
      expect({ held: store.uploadMemory.held, waiting: store.uploadMemory.waiting }).toEqual({ held: 0, waiting: 0 });
    });

    it("reads nothing of a waiting write's body until the budget has room for it", async () => {
      const store = storeOn(engine, 10 * MiB);
      const first = body(9 * MiB, 1);
      const second = body(9 * MiB, 2, { open: true });
      const writes = [
        store.write('first', first.stream, { expectedSize: 9 * MiB }),
        store.write('second', second.stream, { expectedSize: 9 * MiB }),
      ];
      await first.reading;
      expect(second.reads).toBe(0);
      expect(store.uploadMemory.waiting).toBe(1);
      first.open();
      expect((await Promise.all(writes)).map((s) => s.sha256)).toEqual([first.sha256, second.sha256]);
      expect(second.reads).toBeGreaterThan(0);
      expect(store.uploadMemory.held).toBe(0);
    });

    it('runs a write larger than the whole budget alone', async () => {
      const store = storeOn(engine, 4 * MiB);
      const large = body(9 * MiB, 3, { open: true });
      const small = body(MiB, 4, { open: true });
      const writes = [
        store.write('large', large.stream, { expectedSize: 9 * MiB }),
        store.write('small', small.stream, { expectedSize: MiB }),
      ];
      expect({ held: store.uploadMemory.held, waiting: store.uploadMemory.waiting }).toEqual({
        held: 9 * MiB,
        waiting: 1,
      });
      expect((await Promise.all(writes)).map((s) => s.sha256)).toEqual([large.sha256, small.sha256]);
      expect(store.uploadMemory.peak).toBe(9 * MiB);
      expect(store.uploadMemory.held).toBe(0);
    });

    it('gives back the share of a write whose body fails mid-upload, and the waiting write then runs', async () => {
      // 17 MiB declared, a reset after 10 MiB: one part is sent, then the multipart upload is aborted.
      const store = storeOn(engine, 20 * MiB);
      const broken = body(17 * MiB, 5, { failAt: 10 * MiB });
      const waiting = body(9 * MiB, 6, { open: true });
      const failed = store.write('broken', broken.stream, { expectedSize: 17 * MiB }).then(
        () => null,
        (e: unknown) => e,
      );
      const done = store.write('waiting', waiting.stream, { expectedSize: 9 * MiB });
      await broken.reading;
      expect({ held: store.uploadMemory.held, waiting: store.uploadMemory.waiting }).toEqual({
        held: 17 * MiB,
        waiting: 1,
      });
      broken.open();
      expect(await failed).toMatchObject({ message: 'connection reset' });
      expect((await done).sha256).toBe(waiting.sha256);
      expect({ held: store.uploadMemory.held, waiting: store.uploadMemory.waiting }).toEqual({ held: 0, waiting: 0 });
    });

    it("takes a write whose body fails while it waits out of the queue: it rejects with the body's error and holds nothing", async () => {
      const store = storeOn(engine, 10 * MiB);
      const first = body(9 * MiB, 7);
      const gone = body(9 * MiB, 8, { open: true });
      const writes = store.write('first', first.stream, { expectedSize: 9 * MiB });
      const failed = store.write('gone', gone.stream, { expectedSize: 9 * MiB }).then(
        () => null,
        (e: unknown) => e,
      );
      await first.reading;
      gone.stream.destroy(new Error('client went away'));
      expect(await failed).toMatchObject({ message: 'client went away' });
      expect(gone.reads).toBe(0);
      expect({ held: store.uploadMemory.held, waiting: store.uploadMemory.waiting }).toEqual({
        held: 9 * MiB,
        waiting: 0,
      });
      first.open();
      expect((await writes).sha256).toBe(first.sha256);
      expect(store.uploadMemory.held).toBe(0);
    });
  });
}
