import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import { makeBoxFile, recordRequests, run, runInTty, vagrantInstalled, type SeenRequest } from '../helpers/vagrant';

/*
 * Drives the unmodified Debian `vagrant` 2.3.4 CLI (vagrant_cloud gem 3.0.5, API v1) against a
 * real daemon on 127.0.0.1. Runs whenever vagrant is installed; with CI=true it is mandatory.
 * Each vagrant process that sends a token to a host other than vagrantcloud.com warns and sleeps
 * 5 s, so the steps share one login and invocations are kept few.
 */
const installed = vagrantInstalled();
const mandatory = process.env.CI === 'true';
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

// Skipped only off CI without vagrant; under CI=true it runs, and a missing vagrant fails.
describe.runIf(installed || mandatory)('real vagrant CLI against Boxyard', () => {
  let d: TestDaemon;
  let work: string;
  let seen: SeenRequest[];
  let aliceToken: string;
  const boxes: Record<string, Buffer> = {};
  const env = (home = join(work, 'home'), extra: Record<string, string> = {}) => ({
    VAGRANT_HOME: home,
    VAGRANT_CHECKPOINT_DISABLE: '1',
    VAGRANT_SERVER_URL: d.url,
    VAGRANT_NO_COLOR: '1',
    ...extra,
  });
  const vagrant = (args: string[], e = env()) => run('vagrant', args, e);
  const since = (n: number) => seen.slice(n);
  const version = async (box: string, v: string) =>
    d.deps.db
      .selectFrom('box_versions')
      .innerJoin('boxes', 'boxes.id', 'box_versions.box_id')
      .selectAll('box_versions')
      .where('boxes.name', '=', box)
      .where('box_versions.version', '=', v)
      .executeTakeFirst();
  const providers = async (box: string, v: string) =>
    d.deps.db
      .selectFrom('box_providers')
      .innerJoin('box_versions', 'box_versions.id', 'box_providers.version_id')
      .innerJoin('boxes', 'boxes.id', 'box_versions.box_id')
      .selectAll('box_providers')
      .where('boxes.name', '=', box)
      .where('box_versions.version', '=', v)
      .execute();

  beforeAll(async () => {
    expect(installed, 'CI=true requires the vagrant CLI (apt-get install vagrant)').toBe(true);
    d = await startTestDaemon();
    aliceToken = (await d.user('alice', { orgs: ['acme'], password: 'alice-password-1' })).token;
    seen = recordRequests(d.server);
    work = mkdtempSync(join(tmpdir(), 'boxyard-vagrant-'));
    for (const name of ['web-1.0.0', 'web-1.1.0', 'web-1.2.0', 'private-1.0.0'])
      boxes[name] = await makeBoxFile(join(work, `${name}.box`));
  });
  afterAll(async () => {
    await d?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('vagrant cloud auth login stores a token made by POST /authenticate', async () => {
    const r = await runInTty(
      'vagrant cloud auth login --username alice --description vagrant-e2e',
      env(),
      'alice-password-1\n',
    );
    expect(r.code, r.output).toBe(0);
    expect(r.output).toContain('You are now logged in.');
    const token = readFileSync(join(work, 'home', 'data', 'vagrant_login_token'), 'utf8').trim();
    expect((await d.deps.tokens.resolve(token))?.user.username).toBe('alice');
  });

  it('vagrant cloud publish --release uploads directly (PUT without auth, then the callback)', async () => {
    const n = seen.length;
    const r = await vagrant([
      'cloud',
      'publish',
      'acme/web',
      '1.0.0',
      'virtualbox',
      join(work, 'web-1.0.0.box'),
      '--release',
      '--force',
      '--no-private',
      '-s',
      'Web server',
    ]);
    expect(r.code, r.output).toBe(0);
    expect(r.output).toContain('Complete! Published acme/web');
    const put = since(n).find((q) => q.method === 'PUT' && q.path.startsWith('/uploads/'));
    expect(put).toMatchObject({ authorized: false, status: 200 });
    expect(
      since(n).some(
        (q) =>
          q.method === 'PUT' &&
          /\/api\/v1\/box\/acme\/web\/version\/1\.0\.0\/provider\/virtualbox\/upload\/direct\/upl-/.test(q.path) &&
          q.status === 200,
      ),
    ).toBe(true);
    expect((await version('web', '1.0.0'))?.status).toBe('active');
    expect(await providers('web', '1.0.0')).toMatchObject([
      { name: 'virtualbox', blob_sha256: sha256(boxes['web-1.0.0']), size: boxes['web-1.0.0'].length },
    ]);
  });

  it('vagrant cloud publish --no-direct-upload finalizes on the PUT itself', async () => {
    const n = seen.length;
    const r = await vagrant([
      'cloud',
      'publish',
      'acme/web',
      '1.1.0',
      'virtualbox',
      join(work, 'web-1.1.0.box'),
      '--release',
      '--force',
      '--no-direct-upload',
    ]);
    expect(r.code, r.output).toBe(0);
    expect(since(n).some((q) => q.path.endsWith('/provider/virtualbox/upload') && q.method === 'GET')).toBe(true);
    expect(since(n).some((q) => q.path.includes('/upload/direct'))).toBe(false);
    expect(await providers('web', '1.1.0')).toMatchObject([{ blob_sha256: sha256(boxes['web-1.1.0']) }]);
  });

  it('vagrant cloud search and box show read the box back', async () => {
    const search = await vagrant(['cloud', 'search', 'web']);
    expect(search.code, search.output).toBe(0);
    expect(search.output).toMatch(/acme\/web\s*\|\s*1\.1\.0\s*\|\s*0\s*\|\s*virtualbox/);
    const show = await vagrant(['cloud', 'box', 'show', 'acme/web']);
    expect(show.code, show.output).toBe(0);
    expect(show.output).toMatch(/Box:\s+acme\/web/);
    expect(show.output).toMatch(/Private:\s+no/);
    expect(show.output).toMatch(/Current Version:\s+1\.1\.0/);
    expect(show.output).toMatch(/Versions:\s+1\.1\.0, 1\.0\.0/);
  });

  it('vagrant cloud version and provider create, update and delete', async () => {
    const steps: Array<[string[], () => Promise<void>]> = [
      [
        ['version', 'create', 'acme/web', '2.0.0', '-d', 'first'],
        async () => expect(await version('web', '2.0.0')).toMatchObject({ status: 'unreleased', description: 'first' }),
      ],
      [
        ['version', 'update', 'acme/web', '2.0.0', '-d', 'second'],
        async () => expect((await version('web', '2.0.0'))?.description).toBe('second'),
      ],
      [
        ['provider', 'create', 'acme/web', 'virtualbox', '2.0.0', 'https://mirror.example/web.box'],
        async () => expect(await providers('web', '2.0.0')).toMatchObject([{ url: 'https://mirror.example/web.box' }]),
      ],
      [
        ['provider', 'update', 'acme/web', 'virtualbox', '2.0.0', 'https://mirror.example/web2.box'],
        async () => expect(await providers('web', '2.0.0')).toMatchObject([{ url: 'https://mirror.example/web2.box' }]),
      ],
      [
        ['provider', 'delete', 'acme/web', 'virtualbox', '2.0.0', '--force'],
        async () => expect(await providers('web', '2.0.0')).toEqual([]),
      ],
      [
        ['version', 'delete', 'acme/web', '2.0.0', '--force'],
        async () => expect(await version('web', '2.0.0')).toBeUndefined(),
      ],
    ];
    for (const [args, check] of steps) {
      const r = await vagrant(['cloud', ...args]);
      expect(r.code, `${args.join(' ')}\n${r.output}`).toBe(0);
      await check();
    }
  });

  it('vagrant cloud version revoke takes a version out of the catalog', async () => {
    const r = await vagrant(['cloud', 'version', 'revoke', 'acme/web', '1.0.0', '--force']);
    expect(r.code, r.output).toBe(0);
    expect(r.output).toContain('Revoked version 1.0.0 on acme/web');
    expect((await version('web', '1.0.0'))?.status).toBe('revoked');
    const catalog = await d.http.get('/acme/web');
    expect(catalog.json.versions.map((v: { version: string }) => v.version)).toEqual(['1.1.0']);
  });

  it('vagrant box add downloads the hosted file and verifies its checksum', async () => {
    const r = await vagrant(['box', 'add', 'acme/web', '--provider', 'virtualbox']);
    expect(r.code, r.output).toBe(0);
    expect(r.output).toContain('Calculating and comparing box checksum');
    expect(r.output).toContain("Successfully added box 'acme/web' (v1.1.0) for 'virtualbox'!");
    expect(
      existsSync(join(work, 'home', 'boxes', 'acme-VAGRANTSLASH-web', '1.1.0', 'virtualbox', 'metadata.json')),
    ).toBe(true);
    const box = await d.deps.db
      .selectFrom('boxes')
      .select('downloads')
      .where('name', '=', 'web')
      .executeTakeFirstOrThrow();
    expect(box.downloads).toBe(1);
  });

  it('a private box needs VAGRANT_CLOUD_TOKEN', async () => {
    const pub = await vagrant([
      'cloud',
      'publish',
      'acme/private',
      '1.0.0',
      'virtualbox',
      join(work, 'private-1.0.0.box'),
      '--release',
      '--force',
      '--private',
    ]);
    expect(pub.code, pub.output).toBe(0);
    const fresh = join(work, 'home-anonymous');
    mkdirSync(fresh);
    const denied = await vagrant(['box', 'add', 'acme/private'], env(fresh));
    expect(denied.code).not.toBe(0);
    expect(denied.output).toMatch(/404|could not be found/i);
    const withToken = await vagrant(['box', 'add', 'acme/private'], env(fresh, { VAGRANT_CLOUD_TOKEN: aliceToken }));
    expect(withToken.code, withToken.output).toBe(0);
    expect(withToken.output).toContain("Successfully added box 'acme/private' (v1.0.0)");
    expect(existsSync(join(fresh, 'boxes', 'acme-VAGRANTSLASH-private', '1.0.0', 'virtualbox'))).toBe(true);
  });

  it('vagrant box outdated sees a newer release', async () => {
    const pub = await vagrant([
      'cloud',
      'publish',
      'acme/web',
      '1.2.0',
      'virtualbox',
      join(work, 'web-1.2.0.box'),
      '--release',
      '--force',
    ]);
    expect(pub.code, pub.output).toBe(0);
    const r = await vagrant(['box', 'outdated', '--global']);
    expect(r.code, r.output).toBe(0);
    expect(r.output).toMatch(/'acme\/web' for 'virtualbox' is outdated! Current: 1\.1\.0\. Latest: 1\.2\.0/);
  });

  it('an interrupted download is resumed with Range', async () => {
    const file = boxes['web-1.2.0'];
    const [p] = await providers('web', '1.2.0');
    const url = `${d.url}/acme/boxes/web/versions/1.2.0/providers/virtualbox/${p.architecture}/vagrant.box`;
    // What curl leaves behind when a download dies half way (vagrant keeps it in VAGRANT_HOME/tmp).
    const half = Math.floor(file.length / 2);
    mkdirSync(join(work, 'home', 'tmp'), { recursive: true });
    const partial = join(work, 'home', 'tmp', `box${createHash('sha1').update(url).digest('hex')}`);
    writeFileSync(partial, file.subarray(0, half));
    const n = seen.length;
    const r = await vagrant(['box', 'add', 'acme/web', '--box-version', '1.2.0', '--provider', 'virtualbox']);
    expect(r.code, r.output).toBe(0);
    expect(r.output).toContain("Successfully added box 'acme/web' (v1.2.0)");
    const download = since(n).find((q) => q.method === 'GET' && q.path.endsWith('/vagrant.box'));
    expect(download).toMatchObject({ range: `bytes=${half}-`, status: 206, authorized: true });
    expect(existsSync(partial)).toBe(false);
  });
});
