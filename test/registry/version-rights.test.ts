import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient } from '../helpers/http';
import { publishHosted } from '../helpers/mirror';
import { rawGet } from '../helpers/upload';

// As on Vagrant Cloud, a version not yet released is seen, and the files of versions
// not released (unreleased or revoked) are downloaded, only by who may manage the box. Anyone
// else (anonymous, a user who is no member) gets the 404 of a version that does not exist, from
// every endpoint that reads versions; the answers kept in memory are never shared between the two.

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const files = { released: randomBytes(20_000), revoked: randomBytes(20_000), unreleased: randomBytes(20_000) };

let d: TestDaemon;
let alice: HttpClient;
let carol: { token: string; http: HttpClient };
let eve: { token: string; http: HttpClient };
let admin: HttpClient;

const download = (version: string, token?: string) =>
  rawGet(
    `${d.url}/a-org/boxes/web/versions/${version}/providers/virtualbox/amd64/vagrant.box`,
    token ? { authorization: `Bearer ${token}` } : {},
  );
/** What a version that does not exist answers: the same body for one that is hidden, but its number. */
const missing = (version: string) => ({
  errors: [`Box "a-org/web" has no version "${version}".`],
  success: false,
  code: 'not_found',
});
const numbers = (box: { versions: Array<{ version: string }> }) => box.versions.map((v) => v.version);

beforeAll(async () => {
  d = await startTestDaemon();
  admin = d.http.withToken(d.adminToken);
  alice = (await d.user('alice', { orgs: ['a-org'] })).http;
  carol = await d.user('carol');
  eve = await d.user('eve');
  expect(
    (await alice.put('/api/boxyard/organizations/a-org/members/carol', { member: { role: 'member' } })).status,
  ).toBe(200);
  await publishHosted(alice, 'a-org', 'web', '1.0.0', files.released);
  await publishHosted(alice, 'a-org', 'web', '0.9.0', files.revoked);
  expect((await alice.put('/api/v1/box/a-org/web/version/0.9.0/revoke')).status).toBe(200);
  await publishHosted(alice, 'a-org', 'web', '2.0.0', files.unreleased, { release: false });
});
afterAll(() => d?.stop());

describe('who sees versions that are not released', () => {
  const outsiders = () =>
    [
      ['anonymous', d.http, undefined],
      ['a user who is no member', eve.http, eve.token],
    ] as const;
  const managers = () =>
    [
      ['a member', carol.http, carol.token],
      ['an administrator', admin, d.adminToken],
    ] as const;

  it('the box API lists unreleased versions only to who may manage the box, whichever asked first', async () => {
    for (const api of ['v1', 'v2']) {
      // A manager first, then an outsider, then a manager again: no answer kept for one is served to the other.
      for (const [, http] of [managers()[0], ...outsiders(), ...managers()]) {
        const r = await http.get(`/api/${api}/box/a-org/web`);
        expect(r.status, r.text).toBe(200);
        const manager = http === carol.http || http === admin;
        expect(numbers(r.json)).toEqual(manager ? ['2.0.0', '1.0.0', '0.9.0'] : ['1.0.0', '0.9.0']);
        expect(r.json.current_version.version).toBe('1.0.0');
      }
    }
  });

  it.each(['v1', 'v2'])(
    'an unreleased version, and its provider, are the 404 of a missing version to outsiders (%s)',
    async (api) => {
      for (const [who, http] of outsiders()) {
        const absent = await http.get(`/api/${api}/box/a-org/web/version/9.9.9`);
        expect(absent.status).toBe(404);
        expect(absent.json).toEqual(missing('9.9.9'));
        const hidden = await http.get(`/api/${api}/box/a-org/web/version/2.0.0`);
        expect(hidden.status, who).toBe(404);
        expect(hidden.json, who).toEqual(missing('2.0.0'));
        const provider = await http.get(`/api/${api}/box/a-org/web/version/2.0.0/provider/virtualbox/amd64`);
        expect(provider.status, who).toBe(404);
        expect(provider.json, who).toEqual(missing('2.0.0'));
        // A revoked version is still shown (its files are not).
        expect((await http.get(`/api/${api}/box/a-org/web/version/0.9.0`)).json).toMatchObject({
          version: '0.9.0',
          status: 'revoked',
        });
      }
      for (const [who, http] of managers()) {
        const r = await http.get(`/api/${api}/box/a-org/web/version/2.0.0/provider/virtualbox/amd64`);
        expect(r.status, who).toBe(200);
        expect(r.json.checksum, who).toBe(sha256(files.unreleased));
      }
    },
  );

  it('files of unreleased and revoked versions download only for who may manage the box', async () => {
    const absent = await download('9.9.9');
    expect(absent.status).toBe(404);
    expect(JSON.parse(absent.text)).toEqual(missing('9.9.9'));
    for (const [who, , token] of outsiders()) {
      for (const version of ['2.0.0', '0.9.0']) {
        const r = await download(version, token);
        expect(r.status, `${who} ${version}`).toBe(404);
        expect(JSON.parse(r.text), `${who} ${version}`).toEqual(missing(version));
      }
      const released = await download('1.0.0', token);
      expect(released.status, who).toBe(200);
      expect(sha256(released.body)).toBe(sha256(files.released));
    }
    for (const [who, , token] of managers()) {
      for (const [version, file] of [
        ['2.0.0', files.unreleased],
        ['0.9.0', files.revoked],
      ] as const) {
        const r = await download(version, token);
        expect(r.status, `${who} ${version}`).toBe(200);
        expect(sha256(r.body), `${who} ${version}`).toBe(sha256(file));
      }
    }
  });

  it('the catalog and search show released versions only, to everyone', async () => {
    for (const http of [d.http, carol.http]) {
      expect(numbers((await http.get('/a-org/web')).json)).toEqual(['1.0.0']);
      const hits = (await http.get('/api/v1/search?q=web')).json.boxes as Array<{
        tag: string;
        current_version: { version: string };
      }>;
      expect(hits.find((b) => b.tag === 'a-org/web')?.current_version.version).toBe('1.0.0');
    }
  });

  it("the web UI's box numbers and overview count unreleased versions only for who may manage the box", async () => {
    const stats = async (http: HttpClient) =>
      (await http.get('/api/boxyard/boxes/a-org/web/stats')).json.stats as {
        may_manage: boolean;
        versions: Array<{ version: string }>;
      };
    expect(numbers(await stats(d.http))).toEqual(['1.0.0', '0.9.0']);
    expect(numbers(await stats(eve.http))).toEqual(['1.0.0', '0.9.0']);
    expect(await stats(carol.http)).toMatchObject({
      may_manage: true,
      versions: [{ version: '2.0.0' }, { version: '1.0.0' }, { version: '0.9.0' }],
    });
    const overview = async (http: HttpClient) =>
      (await http.get('/api/boxyard/overview')).json.overview as {
        counts: { versions: number; files: number };
        activity: Array<{ kind: string; version: string | null }>;
      };
    const outsider = await overview(eve.http);
    expect(outsider.counts).toMatchObject({ versions: 2, files: 2 });
    expect(
      outsider.activity
        .filter((a) => a.kind === 'upload')
        .map((a) => a.version)
        .sort(),
    ).toEqual(['0.9.0', '1.0.0']);
    const member = await overview(carol.http);
    expect(member.counts).toMatchObject({ versions: 3, files: 3 });
    expect(
      member.activity
        .filter((a) => a.kind === 'upload')
        .map((a) => a.version)
        .sort(),
    ).toEqual(['0.9.0', '1.0.0', '2.0.0']);
  });
});
