import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BoxStatsAnswer } from '../../daemon/src/contract/wire/box-stats';
import { conforms } from '../helpers/contract';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient } from '../helpers/http';
import { hostedProvider } from '../helpers/blobs';
import { createBox, publish } from '../helpers/registry';
import { rawGet, rawPut } from '../helpers/upload';

// GET /api/boxyard/boxes/:username/:name/stats: the box page's sizes, downloads per version and
// per provider (counted when a file's last byte is sent), and whether the caller may edit.

let d: TestDaemon;
let alice: HttpClient;
let bob: HttpClient;
const small = randomBytes(3000);
const large = randomBytes(70_000);

const stats = async (http: HttpClient, box = 'alice/web') =>
  conforms(BoxStatsAnswer, await http.get(`/api/boxyard/boxes/${box}/stats`)).stats;

/** A hosted provider with its file uploaded; answers the file's download URL. */
async function hosted(version: string, architecture: string, file: Buffer): Promise<string> {
  const api = await hostedProvider(alice, 'alice', 'web', version, { api: 'v2', architecture });
  expect((await rawPut((await alice.get(`${api}/upload`)).json.upload_path, file)).status).toBe(200);
  return `${d.url}/alice/boxes/web/versions/${version}/providers/virtualbox/${architecture}/vagrant.box`;
}

beforeAll(async () => {
  d = await startTestDaemon();
  alice = (await d.user('alice', { orgs: ['acme'] })).http;
  bob = (await d.user('bob')).http;
  await createBox(alice, 'alice', 'web');
  await createBox(alice, 'acme', 'hidden', { private: true });
});
afterAll(() => d?.stop());

describe('GET /api/boxyard/boxes/:username/:name/stats', () => {
  let amd64: string;
  let arm64: string;
  beforeAll(async () => {
    amd64 = await hosted('1.0.0', 'amd64', small);
    arm64 = await hosted('1.0.0', 'arm64', large);
    expect((await alice.put('/api/v2/box/alice/web/version/1.0.0/release')).status).toBe(200);
    await publish(alice, 'alice', 'web', '2.0.0', { architecture: 'amd64' });
  });

  it('answers each provider’s size, none for an external URL, and no downloads yet', async () => {
    expect(await stats(alice)).toEqual({
      downloads: 0,
      may_manage: true,
      versions: [
        {
          version: '2.0.0',
          downloads: 0,
          upstream: null,
          providers: [{ name: 'virtualbox', architecture: 'amd64', size: null, downloads: 0 }],
        },
        {
          version: '1.0.0',
          downloads: 0,
          upstream: null,
          providers: [
            { name: 'virtualbox', architecture: 'amd64', size: small.length, downloads: 0 },
            { name: 'virtualbox', architecture: 'arm64', size: large.length, downloads: 0 },
          ],
        },
      ],
      // Not a mirror's copy (test/mirror/hcp.test.ts has one).
      upstream: null,
    });
  });

  it('counts finished downloads per provider and per version, and not a range that stops short', async () => {
    for (const url of [amd64, amd64, arm64]) expect((await rawGet(url)).status).toBe(200);
    expect((await rawGet(arm64, { range: 'bytes=0-99' })).status).toBe(206);
    // Counted once the response has finished, after the client has its last byte.
    await expect.poll(async () => (await stats(alice)).downloads).toBe(3);
    const v1 = (await stats(alice)).versions[1];
    expect(v1).toEqual({
      version: '1.0.0',
      downloads: 3,
      upstream: null,
      providers: [
        expect.objectContaining({ architecture: 'amd64', downloads: 2 }),
        expect.objectContaining({ architecture: 'arm64', downloads: 1 }),
      ],
    });
  });

  it('forgets a deleted provider’s count with it', async () => {
    expect((await alice.delete('/api/v2/box/alice/web/version/1.0.0/provider/virtualbox/arm64')).status).toBe(200);
    expect((await stats(alice)).versions[1]).toEqual({
      version: '1.0.0',
      downloads: 2,
      upstream: null,
      providers: [expect.objectContaining({ architecture: 'amd64', downloads: 2 })],
    });
    const left = await d.deps.db.selectFrom('provider_downloads').select('downloads').execute();
    expect(left.map((r) => r.downloads)).toEqual([2]);
  });

  it('tells a visitor or another user of a public box that they may not edit it', async () => {
    expect((await stats(bob)).may_manage).toBe(false);
    expect((await stats(d.http)).may_manage).toBe(false);
    expect((await stats(d.http.withToken(d.adminToken))).may_manage).toBe(true);
  });

  it('is "not found" for a box the caller may not see, as the box API is', async () => {
    expect((await stats(alice, 'acme/hidden')).may_manage).toBe(true);
    for (const http of [bob, d.http]) {
      const r = await http.get('/api/boxyard/boxes/acme/hidden/stats');
      expect(r.status).toBe(404);
      expect(r.json.code).toBe('not_found');
    }
    expect((await alice.get('/api/boxyard/boxes/alice/nothing/stats')).json.code).toBe('not_found');
  });
});
