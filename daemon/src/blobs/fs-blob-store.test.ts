import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FsBlobStore } from './fs-blob-store';
import { blobStoreContract, collect, failingBody, hex } from './blob-store.contract';

const contractDirs: string[] = [];
afterAll(() => {
  for (const d of contractDirs) rmSync(d, { recursive: true, force: true });
});
blobStoreContract('FsBlobStore', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'boxyard-blobs-'));
  contractDirs.push(dir);
  return new FsBlobStore(dir);
});

describe('FsBlobStore on disk', () => {
  let dir: string;
  let store: FsBlobStore;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'boxyard-blobs-'));
    store = new FsBlobStore(dir);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('stages under uploads/<id>/data and commits to blobs/sha256/ab/<hex>', async () => {
    const staged = await store.write('up1', Readable.from(['hello box']));
    expect(readFileSync(join(dir, 'uploads', 'up1', 'data'), 'utf8')).toBe('hello box');
    await store.commit(staged);
    const onDisk = join(dir, 'blobs', 'sha256', staged.sha256.slice(0, 2), staged.sha256);
    expect(readFileSync(onDisk, 'utf8')).toBe('hello box');
    expect(existsSync(join(dir, 'uploads', 'up1'))).toBe(false);
    expect(readdirSync(join(dir, 'uploads'))).toEqual([]);
  });

  it('keeps the staging folder of a body that failed midway, for a resume', async () => {
    await expect(store.write('broken', failingBody(1024))).rejects.toThrow('connection reset');
    expect((await collect(store.listStaged())).map((s) => s.uploadId)).toEqual(['broken']);
  });

  it('resumes a staged write at an offset, hashing the kept bytes again', async () => {
    await store.write('resume', Readable.from(['01234']));
    const staged = await store.append('resume', Readable.from(['56789']), { offset: 5, expectedSize: 10 });
    expect(staged).toMatchObject({ size: 10, sha256: hex('sha256', '0123456789') });
    expect(await text(store.read((await store.commit(staged)).sha256))).toBe('0123456789');
  });

  it('ignores stray files in its folders', async () => {
    const { sha256 } = await store.commit(await store.write('x', Readable.from(['x'])));
    await store.write('pending', Readable.from(['p']));
    const { writeFileSync, mkdirSync } = await import('node:fs');
    writeFileSync(join(dir, 'blobs', 'sha256', sha256.slice(0, 2), 'not-a-digest'), '');
    mkdirSync(join(dir, 'uploads', 'bad name'));
    expect((await collect(store.list())).map((b) => b.sha256)).toEqual([sha256]);
    expect((await collect(store.listStaged())).map((s) => s.uploadId)).toEqual(['pending']);
  });
});
