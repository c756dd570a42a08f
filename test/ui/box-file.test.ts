import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readBoxFile } from '../../renderer/src/api/box-file';
import { BoxMetadataError } from '../../daemon/src/contract/box-metadata';
import { readBoxMetadata } from '../../daemon/src/mirror/import/box-metadata';
import { boxTar } from '../helpers/vagrant';

const meta = (doc: unknown): [string, string] => ['metadata.json', JSON.stringify(doc)];

/** What the browser's reader and the daemon's import reader each make of `bytes`: the same, or the same refusal. */
async function bothRead(bytes: Buffer) {
  const settle = (p: Promise<unknown>) =>
    p.then(
      (v) => ({ said: v }),
      (e: Error) => ({ refused: e.message }),
    );
  const browser = await settle(readBoxFile(new Blob([bytes])));
  const daemon = await settle(readBoxMetadata(Readable.from([bytes])));
  return { browser, daemon };
}

describe("the web UI's reader of a chosen .box file", () => {
  it('reads a gzipped box, and a plain tar, as the daemon does', async () => {
    for (const gzip of [true, false]) {
      const box = await boxTar([['Vagrantfile', ''], meta({ provider: 'libvirt', architecture: 'arm64' })], gzip);
      expect(await readBoxFile(new Blob([box]))).toEqual({ provider: 'libvirt', architecture: 'arm64' });
      const { browser, daemon } = await bothRead(box);
      expect(browser).toEqual(daemon);
    }
  });

  it('passes over a disk image before metadata.json (Packer puts box.img first), and takes ./metadata.json', async () => {
    const box = await boxTar([
      ['box.img', randomBytes(3 * 1024 * 1024 + 17)],
      ['./metadata.json', '{"provider":"libvirt"}'],
    ]);
    expect(await readBoxFile(new Blob([box]))).toEqual({ provider: 'libvirt' });
  });

  it('takes no metadata.json below the top level', async () => {
    const box = await boxTar([['sub/metadata.json', '{"provider":"nope"}'], meta({ provider: 'qemu' })]);
    expect(await readBoxFile(new Blob([box]))).toEqual({ provider: 'qemu' });
  });

  it.each([
    ['not a tar', async () => randomBytes(20_000), /not a .box file/],
    ['empty', async () => Buffer.alloc(0), /holds no metadata.json/],
    ['a truncated gzip', async () => (await boxTar([meta({ provider: 'x' })])).subarray(0, 30), /not a .box file/],
    ['without metadata.json', () => boxTar([['box.img', 'x']]), /holds no metadata.json/],
    ['with a metadata.json over 64 KiB', () => boxTar([meta({ pad: 'x'.repeat(70_000) })]), /larger than 64 KiB/],
    ['with a metadata.json not JSON', () => boxTar([['metadata.json', '{nope']]), /not valid JSON/],
    ['with a metadata.json not an object', () => boxTar([['metadata.json', '[1]']]), /not a JSON object/],
  ])('refuses a file %s, in the words the daemon uses', async (_name, make, words) => {
    const bytes = await make();
    await expect(readBoxFile(new Blob([bytes]))).rejects.toBeInstanceOf(BoxMetadataError);
    const { browser, daemon } = await bothRead(bytes);
    expect(browser).toMatchObject({ refused: expect.stringMatching(words) });
    expect(daemon).toMatchObject({ refused: expect.stringMatching(words) });
  });
});
