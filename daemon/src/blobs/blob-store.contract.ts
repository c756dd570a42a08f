import { createHash } from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';
import { buffer, text } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import { SizeMismatchError, type BlobStore } from './blob-store';

/*
 * What every BlobStore does, whatever holds the bytes: run by fs-blob-store.test.ts on a data
 * folder and by s3/s3-blob-store.test.ts on S3 servers. `open` gives an empty store each time.
 */

export const hex = (alg: string, data: string | Buffer): string => createHash(alg).update(data).digest('hex');

export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of items) out.push(x);
  return out;
}

/** A body that sends `first` bytes, then fails as a reset connection does. */
export function failingBody(first: number): Readable {
  let sent = false;
  return new Readable({
    read() {
      if (!sent) {
        sent = true;
        this.push(Buffer.alloc(first, 1));
        return;
      }
      this.destroy(new Error('connection reset'));
    },
  });
}

/** Sends the blob (or a range) into a writable and answers what it received. */
async function sent(store: BlobStore, sha256: string, range: { start: number; end: number }): Promise<string> {
  const out = new PassThrough();
  const received = buffer(out);
  await store.send(sha256, range, out);
  return (await received).toString();
}

/** Rejects with what reading a missing blob fails with. */
async function readError(stream: Readable): Promise<NodeJS.ErrnoException> {
  try {
    await text(stream);
  } catch (err) {
    return err as NodeJS.ErrnoException;
  }
  throw new Error('the read succeeded');
}

export function blobStoreContract(name: string, open: () => Promise<BlobStore>): void {
  describe(`${name}: the BlobStore contract`, () => {
    it('hashes every requested digest in one pass; commits make the blob visible', async () => {
      const store = await open();
      const body = 'hello box';
      const staged = await store.write('up1', Readable.from([Buffer.from('hello '), Buffer.from('box')]), {
        algorithms: ['md5', 'sha512'],
      });
      expect(staged).toMatchObject({ uploadId: 'up1', size: 9, sha256: hex('sha256', body) });
      expect(staged.digests).toEqual({
        sha256: hex('sha256', body),
        md5: hex('md5', body),
        sha512: hex('sha512', body),
      });
      expect(await store.stat(staged.sha256)).toBeNull();
      expect((await collect(store.listStaged())).map((s) => s.uploadId)).toEqual(['up1']);

      const ref = await store.commit(staged);
      expect(ref).toEqual({ sha256: staged.sha256, size: 9 });
      expect(await store.stat(staged.sha256)).toEqual(ref);
      expect(await collect(store.listStaged())).toEqual([]);
      expect(await text(store.read(staged.sha256))).toBe(body);
    });

    it('stores the same content once', async () => {
      const store = await open();
      const a = await store.commit(await store.write('a', Readable.from(['same'])));
      const b = await store.commit(await store.write('b', Readable.from(['same'])));
      expect(a).toEqual(b);
      expect((await collect(store.list())).map((x) => x.sha256)).toEqual([a.sha256]);
      expect(await collect(store.listStaged())).toEqual([]);
    });

    it('stores an empty file', async () => {
      const store = await open();
      const ref = await store.commit(await store.write('empty', Readable.from([]), { expectedSize: 0 }));
      expect(ref).toEqual({ sha256: hex('sha256', ''), size: 0 });
      expect(await text(store.read(ref.sha256))).toBe('');
    });

    it('refuses a body shorter or longer than declared and leaves nothing', async () => {
      const store = await open();
      await expect(store.write('short', Readable.from(['abc']), { expectedSize: 10 })).rejects.toEqual(
        new SizeMismatchError(10, 3),
      );
      await expect(store.write('long', Readable.from(['abcdef']), { expectedSize: 4 })).rejects.toBeInstanceOf(
        SizeMismatchError,
      );
      expect(await collect(store.list())).toEqual([]);
      await store.discard('short');
      await store.discard('long');
      expect(await collect(store.listStaged())).toEqual([]);
    });

    it("rejects with the body's own error when it fails midway, and stores no blob", async () => {
      const store = await open();
      await expect(store.write('broken', failingBody(1024))).rejects.toThrow('connection reset');
      expect(await collect(store.list())).toEqual([]);
      await store.discard('broken');
      expect(await collect(store.listStaged())).toEqual([]);
    });

    it('reads and sends whole blobs and inclusive byte ranges', async () => {
      const store = await open();
      const { sha256 } = await store.commit(await store.write('r', Readable.from(['0123456789'])));
      expect(await text(store.read(sha256))).toBe('0123456789');
      expect(await text(store.read(sha256, { start: 2, end: 4 }))).toBe('234');
      expect(await sent(store, sha256, { start: 0, end: 9 })).toBe('0123456789');
      expect(await sent(store, sha256, { start: 7, end: 9 })).toBe('789');
      await store.remove(sha256);
      expect(await store.stat(sha256)).toBeNull();
      await store.remove(sha256);
    });

    it('fails reads and sends of a missing blob with ENOENT, and answers null to stat and reuse', async () => {
      const store = await open();
      const missing = hex('sha256', 'never stored');
      expect(await store.stat(missing)).toBeNull();
      expect(await store.reuse(missing)).toBeNull();
      expect((await readError(store.read(missing))).code).toBe('ENOENT');
      const out = new PassThrough();
      await expect(store.send(missing, { start: 0, end: 0 }, out)).rejects.toMatchObject({ code: 'ENOENT' });
      expect(out.writableLength).toBe(0);
    });

    it('spares a blob modified after the time a removal names', async () => {
      const store = await open();
      const before = new Date(Date.now() - 5000);
      const { sha256 } = await store.commit(await store.write('fresh', Readable.from(['fresh'])));
      expect(await store.remove(sha256, { untouchedSince: before })).toBe(false);
      expect(await store.stat(sha256)).not.toBeNull();
      expect(await store.remove(sha256, { untouchedSince: new Date(Date.now() + 5000) })).toBe(true);
      expect(await store.stat(sha256)).toBeNull();
    });

    it('reuses a stored blob', async () => {
      const store = await open();
      const ref = await store.commit(await store.write('x', Readable.from(['kept'])));
      expect(await store.reuse(ref.sha256)).toEqual(ref);
      expect(await text(store.read(ref.sha256))).toBe('kept');
    });

    it('rejects ids that could escape the store', async () => {
      const store = await open();
      await expect(store.write('../x', Readable.from(['a']))).rejects.toThrow('invalid upload id');
      await expect(store.stat('../../etc/passwd')).rejects.toThrow('invalid sha256');
      expect(() => store.read('AB'.repeat(32))).toThrow('invalid sha256');
    });

    it('lists blobs and staged uploads with their modification times', async () => {
      const store = await open();
      // Object stores keep whole seconds: the times fall within a second of the calls.
      const before = Date.now() - 1000;
      const { sha256 } = await store.commit(await store.write('x', Readable.from(['x'])));
      await store.write('pending', Readable.from(['p']));
      const after = Date.now() + 1000;
      const blobs = await collect(store.list());
      const staged = await collect(store.listStaged());
      expect(blobs.map((b) => b.sha256)).toEqual([sha256]);
      expect(staged.map((s) => s.uploadId)).toEqual(['pending']);
      for (const t of [...blobs, ...staged].map((e) => e.modifiedAt.getTime())) {
        expect(t).toBeGreaterThanOrEqual(before);
        expect(t).toBeLessThanOrEqual(after);
      }
    });

    it('appends at offset 0 as a fresh write', async () => {
      const store = await open();
      const staged = await store.append('fresh', Readable.from(['whole']), { offset: 0, expectedSize: 5 });
      expect(staged).toMatchObject({ size: 5, sha256: hex('sha256', 'whole') });
    });
  });
}
