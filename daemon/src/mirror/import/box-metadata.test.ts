import { randomBytes } from 'node:crypto';
import { PassThrough, Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { gzipSync } from 'node:zlib';
import { pack } from 'tar-stream';
import { describe, expect, it } from 'vitest';
import { BoxMetadataError, boxMetadataTap, readBoxMetadata } from './box-metadata';

async function tarOf(
  entries: Array<{ name: string; body: string | Buffer; type?: 'file' | 'directory' }>,
): Promise<Buffer> {
  const t = pack();
  for (const e of entries) {
    if (e.type === 'directory') t.entry({ name: e.name, type: 'directory' });
    else t.entry({ name: e.name }, e.body);
  }
  t.finalize();
  const chunks: Buffer[] = [];
  for await (const c of t) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** A stream handing out `bytes` in small chunks, counting how many were read. */
function chunked(bytes: Buffer, size = 4096) {
  const state = { read: 0 };
  const stream = Readable.from(
    (function* () {
      for (let i = 0; i < bytes.length; i += size) {
        state.read = Math.min(i + size, bytes.length);
        yield bytes.subarray(i, i + size);
      }
    })(),
    { objectMode: false },
  );
  return { stream, state };
}

const meta = (doc: unknown) => ({ name: 'metadata.json', body: JSON.stringify(doc) });

describe('readBoxMetadata', () => {
  it('reads provider and architecture from a plain tar', async () => {
    const box = await tarOf([
      { name: 'Vagrantfile', body: '' },
      meta({ provider: 'libvirt', architecture: 'arm64', format: 'qcow2' }),
    ]);
    expect(await readBoxMetadata(Readable.from([box]))).toEqual({ provider: 'libvirt', architecture: 'arm64' });
  });

  it('detects gzip by its magic bytes, even when they arrive one at a time', async () => {
    const box = gzipSync(
      await tarOf([
        { name: './', body: '', type: 'directory' },
        { name: './metadata.json', body: '{"provider":"virtualbox"}' },
      ]),
    );
    expect(await readBoxMetadata(chunked(box, 1).stream)).toEqual({ provider: 'virtualbox' });
  });

  it('stops reading once metadata.json is found', async () => {
    const box = await tarOf([
      meta({ provider: 'virtualbox' }),
      { name: 'disk.vmdk', body: randomBytes(4 * 1024 * 1024) },
    ]);
    const { stream, state } = chunked(box);
    expect(await readBoxMetadata(stream)).toEqual({ provider: 'virtualbox' });
    expect(state.read).toBeLessThan(box.length / 2);
  });

  it('skips large entries before metadata.json (libvirt boxes put box.img first)', async () => {
    const box = gzipSync(await tarOf([{ name: 'box.img', body: randomBytes(300_000) }, meta({ provider: 'libvirt' })]));
    expect(await readBoxMetadata(chunked(box).stream)).toEqual({ provider: 'libvirt' });
  });

  it('ignores keys of the wrong type and a metadata.json below the top level', async () => {
    const box = await tarOf([
      { name: 'sub/metadata.json', body: '{"provider":"nope"}' },
      meta({ provider: 7, architecture: 'amd64' }),
    ]);
    expect(await readBoxMetadata(Readable.from([box]))).toEqual({ architecture: 'amd64' });
  });

  it.each([
    ['random bytes', randomBytes(10_000)],
    ['gzipped random bytes', gzipSync(randomBytes(10_000))],
    ['a truncated gzip', gzipSync(randomBytes(10_000)).subarray(0, 100)],
    ['an empty stream', Buffer.alloc(0)],
  ])('refuses %s', async (_name, bytes) => {
    await expect(readBoxMetadata(Readable.from([bytes]))).rejects.toBeInstanceOf(BoxMetadataError);
  });

  it('refuses a tar without metadata.json, or with one that is not a JSON object', async () => {
    await expect(readBoxMetadata(Readable.from([await tarOf([{ name: 'box.img', body: 'x' }])]))).rejects.toThrow(
      /no metadata.json/,
    );
    await expect(
      readBoxMetadata(Readable.from([await tarOf([{ name: 'metadata.json', body: '{nope' }])])),
    ).rejects.toThrow(/not valid JSON/);
    await expect(
      readBoxMetadata(Readable.from([await tarOf([{ name: 'metadata.json', body: '["a"]' }])])),
    ).rejects.toThrow(/not a JSON object/);
    await expect(
      readBoxMetadata(Readable.from([await tarOf([{ name: 'metadata.json', body: ' '.repeat(70_000) }])])),
    ).rejects.toThrow(/larger than/);
  });
});

describe('boxMetadataTap', () => {
  /** Pipes `bytes` through the tap into a counting sink; answers what passed and what was read. */
  async function through(bytes: Buffer) {
    const { tap, metadata } = boxMetadataTap();
    let passed = 0;
    await pipeline(
      chunked(bytes, 64 * 1024).stream,
      tap,
      new Writable({
        write(c: Buffer, _e, cb) {
          passed += c.length;
          cb();
        },
      }),
    );
    return { passed, metadata };
  }

  it('passes every byte on and reads the metadata in the same pass', async () => {
    const box = gzipSync(
      await tarOf([
        meta({ provider: 'hyperv', architecture: 'amd64' }),
        { name: 'disk', body: randomBytes(3 * 1024 * 1024) },
      ]),
    );
    const r = await through(box);
    expect(r.passed).toBe(box.length);
    expect(await r.metadata).toEqual({ provider: 'hyperv', architecture: 'amd64' });
  });

  it('passes a file that is not a box on unchanged and reports why it is not one', async () => {
    const junk = randomBytes(5 * 1024 * 1024);
    const r = await through(junk);
    expect(r.passed).toBe(junk.length);
    await expect(r.metadata).rejects.toBeInstanceOf(BoxMetadataError);
  });

  it('ends the reader when the stream fails', async () => {
    const { tap, metadata } = boxMetadataTap();
    const body = new PassThrough();
    const done = pipeline(
      body,
      tap,
      new Writable({
        write(_c, _e, cb) {
          cb();
        },
      }),
    );
    body.write(randomBytes(100));
    body.destroy(new Error('client went away'));
    await expect(done).rejects.toThrow('client went away');
    await expect(metadata).rejects.toThrow();
  });
});
