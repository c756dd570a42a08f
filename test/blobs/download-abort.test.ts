import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import { createBox } from '../helpers/registry';
import { hostedProvider } from '../helpers/blobs';
import { rawPut } from '../helpers/upload';
import { rawConnect } from '../helpers/sockets';

// A client that stops a download (Ctrl-C, a lost link) is normal: one debug line
// without a stack, never an error.
let d: TestDaemon;
const lines: Array<Record<string, unknown>> = [];
// Larger than loopback socket buffers can hold, so the daemon is still writing when the client goes.
const FILE = randomBytes(64 * 1024 * 1024);
const PATH = '/alice/boxes/big/versions/1.0.0/providers/virtualbox/unknown/vagrant.box';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(check: () => boolean): Promise<void> {
  while (!check()) await sleep(20);
}
const aborts = () => lines.filter((l) => /download ended early/.test(String(l.msg)));

beforeAll(async () => {
  const log = pino(
    { level: 'debug' },
    {
      write: (line: string) => {
        lines.push(JSON.parse(line) as Record<string, unknown>);
      },
    },
  );
  d = await startTestDaemon({ log });
  const alice = await d.user('alice');
  await createBox(alice.http, 'alice', 'big');
  const api = await hostedProvider(alice.http, 'alice', 'big', '1.0.0');
  expect((await rawPut((await alice.http.get(`${api}/upload`)).json.upload_path, FILE)).status).toBe(200);
  // Released: the file of a version that is not is no anonymous client's to download.
  expect((await alice.http.put('/api/v1/box/alice/big/version/1.0.0/release')).status).toBe(200);
});
afterAll(() => d.stop());

describe('a download the client stops', () => {
  it('is one quiet debug line without a stack when cut off mid-stream', async () => {
    const before = lines.length;
    await new Promise<void>((resolve, reject) => {
      const req = request(`${d.url}${PATH}`, (res) => {
        expect(res.statusCode).toBe(200);
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', () => undefined);
      req.once('error', reject);
      req.end();
    });
    await until(() => aborts().length >= 1);
    await sleep(100);
    expect(aborts()).toHaveLength(1);
    const mine = lines.slice(before);
    expect(aborts()[0]).toMatchObject({ level: 20, path: PATH });
    expect(mine.filter((l) => Number(l.level) >= 40)).toEqual([]);
    expect(mine.filter((l) => JSON.stringify(l).includes('"stack"'))).toEqual([]);
  });

  it('is never an unhandled error when the client is gone before the first byte', async () => {
    const before = lines.length;
    let seen = 0;
    d.server.on('request', () => {
      seen++;
    });
    for (let i = 0; i < 5; i++) {
      const c = await rawConnect(d.url);
      c.socket.write(`GET ${PATH} HTTP/1.1\r\nHost: ${new URL(d.url).host}\r\n\r\n`);
      c.socket.resetAndDestroy();
      await c.closed;
    }
    // Each request the daemon read is logged once it is handled, however it ended: wait for them all.
    await until(
      () =>
        seen > 0 &&
        lines.slice(before).filter((l) => /download ended early|unhandled/.test(String(l.msg))).length >= seen,
    );
    const mine = lines.slice(before);
    expect(mine.filter((l) => Number(l.level) >= 40)).toEqual([]);
    expect(mine.filter((l) => JSON.stringify(l).includes('"stack"'))).toEqual([]);
  });
});
