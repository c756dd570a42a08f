import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FsBlobStore } from './fs-blob-store';
import { SizeMismatchError } from './blob-store';

const hex = (alg: string, data: string | Buffer) => createHash(alg).update(data).digest('hex');

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe('FsBlobStore', () => {
  let dir: string;
  let store: FsBlobStore;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'boxyard-blobs-'));
    store = new FsBlobStore(dir);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('hashes every requested digest in one pass and commits under blobs/sha256/ab/<hex>', async () => {
    const body = 'hello box';
    const staged = await store.write('up1', Readable.from([Buffer.from('hello '), Buffer.from('box')]), { algorithms: ['md5', 'sha512'] });
    expect(staged).toMatchObject({ uploadId: 'up1', size: 9, sha256: hex('sha256', body) });
    expect(staged.digests).toEqual({ sha256: hex('sha256', body), md5: hex('md5', body), sha512: hex('sha512', body) });
    expect(await store.stat(staged.sha256)).toBeNull();
    expect(readFileSync(join(dir, 'uploads', 'up1', 'data'), 'utf8')).toBe(body);

    const ref = await store.commit(staged);
    expect(ref).toEqual({ sha256: staged.sha256, size: 9 });
    const onDisk = join(dir, 'blobs', 'sha256', staged.sha256.slice(0, 2), staged.sha256);
    expect(readFileSync(onDisk, 'utf8')).toBe(body);
    expect(existsSync(join(dir, 'uploads', 'up1'))).toBe(false);
    expect(await store.stat(staged.sha256)).toEqual(ref);
  });

  it('stores the same content once', async () => {
    const a = await store.commit(await store.write('a', Readable.from(['same'])));
    const b = await store.commit(await store.write('b', Readable.from(['same'])));
    expect(a).toEqual(b);
    expect((await collect(store.list())).map((x) => x.sha256)).toEqual([a.sha256]);
    expect(readdirSync(join(dir, 'uploads'))).toEqual([]);
  });

  it('refuses a body shorter than declared and leaves no blob', async () => {
    await expect(store.write('short', Readable.from(['abc']), { expectedSize: 10 })).rejects.toBeInstanceOf(SizeMismatchError);
    expect(await collect(store.list())).toEqual([]);
    await store.discard('short');
    expect(existsSync(join(dir, 'uploads', 'short'))).toBe(false);
  });

  it('leaves no blob when the body stream fails midway', async () => {
    const failing = new Readable({
      read() {
        this.push(Buffer.alloc(1024, 1));
        this.destroy(new Error('connection reset'));
      },
    });
    await expect(store.write('broken', failing)).rejects.toThrow('connection reset');
    expect(await collect(store.list())).toEqual([]);
    expect((await collect(store.listStaged())).map((s) => s.uploadId)).toEqual(['broken']);
  });

  it('reads whole blobs and inclusive byte ranges', async () => {
    const { sha256 } = await store.commit(await store.write('r', Readable.from(['0123456789'])));
    expect(await text(store.read(sha256))).toBe('0123456789');
    expect(await text(store.read(sha256, { start: 2, end: 4 }))).toBe('234');
    await store.remove(sha256);
    expect(await store.stat(sha256)).toBeNull();
  });

  it('rejects ids that could escape the data folder', async () => {
    await expect(store.write('../x', Readable.from(['a']))).rejects.toThrow('invalid upload id');
    await expect(store.stat('../../etc/passwd')).rejects.toThrow('invalid sha256');
    expect(() => store.read('AB'.repeat(32))).toThrow('invalid sha256');
  });

  it('lists blobs and staged uploads, ignoring stray files', async () => {
    const { sha256 } = await store.commit(await store.write('x', Readable.from(['x'])));
    await store.write('pending', Readable.from(['p']));
    expect((await collect(store.list())).map((b) => b.sha256)).toEqual([sha256]);
    expect((await collect(store.listStaged())).map((s) => s.uploadId)).toEqual(['pending']);
  });
});
