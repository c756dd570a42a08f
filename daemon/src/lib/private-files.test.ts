import fs, { chmodSync, fstatSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PRIVATE_FILE, SHARED_FILE, writeFileAtomically } from './private-files';

const folder = () => mkdtempSync(join(tmpdir(), 'boxyard-atomic-'));

describe('writeFileAtomically', () => {
  afterEach(() => vi.restoreAllMocks());

  it('writes a new file owner-only, whatever the umask', async () => {
    const path = join(folder(), 'settings.json');
    const umask = process.umask(0);
    try {
      await writeFileAtomically(path, '{"a":1}\n');
    } finally {
      process.umask(umask);
    }
    expect(readFileSync(path, 'utf8')).toBe('{"a":1}\n');
    expect(statSync(path).mode & 0o777).toBe(PRIVATE_FILE);
  });

  it('replaces a file with the mode asked, not the old one', async () => {
    const dir = folder();
    const path = join(dir, 'cert.pem');
    writeFileSync(path, 'old', { mode: 0o666 });
    await writeFileAtomically(path, Buffer.from('new'), { mode: 0o644 });
    expect(readFileSync(path, 'utf8')).toBe('new');
    expect(statSync(path).mode & 0o777).toBe(0o644);
    await writeFileAtomically(path, 'newer');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['cert.pem']);
  });

  it('replaces the content whole: a shorter text leaves nothing of the longer one', async () => {
    const path = join(folder(), 'order.json');
    writeFileSync(path, '{"directory":"https://acme.example/directory","name":"boxes.example.org"}\n');
    await writeFileAtomically(path, '{}\n', { mode: SHARED_FILE });
    expect(readFileSync(path, 'utf8')).toBe('{}\n');
    expect(statSync(path).mode & 0o777).toBe(0o644);
  });

  it("'umask': a new file gets 0666 less the umask, a file written again keeps its mode", async () => {
    const dir = folder();
    const umask = process.umask(0o027);
    try {
      await writeFileAtomically(join(dir, 'manifest.json'), '{}\n', { mode: 'umask' });
    } finally {
      process.umask(umask);
    }
    expect(statSync(join(dir, 'manifest.json')).mode & 0o777).toBe(0o640);
    writeFileSync(join(dir, 'catalog.json'), 'old');
    chmodSync(join(dir, 'catalog.json'), 0o604);
    await writeFileAtomically(join(dir, 'catalog.json'), 'new', { mode: 'umask' });
    expect(readFileSync(join(dir, 'catalog.json'), 'utf8')).toBe('new');
    expect(statSync(join(dir, 'catalog.json')).mode & 0o777).toBe(0o604);
  });

  it('fsyncs the folder once the new file has its name there', async () => {
    const dir = folder();
    const path = join(dir, 'ca.pem');
    const probe = await open(dir, 'r');
    const proto = Object.getPrototypeOf(probe) as { sync: () => Promise<void> };
    await probe.close();
    const synced: string[] = [];
    const sync = proto.sync;
    vi.spyOn(proto, 'sync').mockImplementation(function (this: { fd: number }) {
      const s = fstatSync(this.fd);
      // What the folder holds when it is synced: the new file, under its own name.
      if (s.isDirectory() && s.ino === statSync(dir).ino) synced.push(readFileSync(path, 'utf8'));
      return sync.call(this);
    });
    await writeFileAtomically(path, 'the CA');
    expect(synced).toEqual(['the CA']);
  });

  it('writes beside the file and renames over it: the file is never written in place', async () => {
    const dir = folder();
    const path = join(dir, 'manifest.json');
    writeFileSync(path, 'old');
    const renames: [string, string][] = [];
    const rename = fs.rename;
    vi.spyOn(fs, 'rename').mockImplementation(((from: string, to: string, cb: fs.NoParamCallback) => {
      renames.push([from, to]);
      // At the moment of the rename the new bytes are whole in the temporary file and the old file is untouched.
      expect(readFileSync(path, 'utf8')).toBe('old');
      expect(readFileSync(from, 'utf8')).toBe('new');
      rename(from, to, cb);
    }) as typeof fs.rename);
    await writeFileAtomically(path, 'new');
    expect(renames).toHaveLength(1);
    expect(dirname(renames[0][0])).toBe(dir);
    expect(renames[0][0]).not.toBe(path);
    expect(renames[0][1]).toBe(path);
    expect(readFileSync(path, 'utf8')).toBe('new');
  });

  it('a write that fails half-way leaves the old content and no temporary file', async () => {
    const dir = folder();
    const path = join(dir, 'key.pem');
    writeFileSync(path, 'the old key');
    vi.spyOn(fs, 'write').mockImplementation(((...args: unknown[]) => {
      const cb = args[args.length - 1] as (err: Error) => void;
      cb(Object.assign(new Error('no space left on device'), { code: 'ENOSPC' }));
    }) as typeof fs.write);
    await expect(writeFileAtomically(path, 'the new key')).rejects.toThrow(/no space/);
    expect(readFileSync(path, 'utf8')).toBe('the old key');
    expect(readdirSync(dir)).toEqual(['key.pem']);
  });
});
