import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostedProvider, providerRow } from '../helpers/blobs';
import { runCli } from '../helpers/cli';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient } from '../helpers/http';
import { publishHosted, sha256 } from '../helpers/mirror';
import { createBox } from '../helpers/registry';
import { rawGet, rawPut } from '../helpers/upload';

const blobFile = (dataDir: string, sha: string) => join(dataDir, 'blobs', 'sha256', sha.slice(0, 2), sha);

function flipByte(path: string, at = 100): void {
  const b = readFileSync(path);
  b[at] ^= 0xff;
  writeFileSync(path, b);
}

async function waitFor(check: () => Promise<boolean>): Promise<void> {
  const until = Date.now() + 20_000;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not reached in 20 s');
    await new Promise((r) => setTimeout(r, 20));
  }
}

const check = (dataDir: string, ...flags: string[]) => runCli(['check', '--data', dataDir, ...flags]);
const download = (d: TestDaemon, box: string, version: string) =>
  rawGet(`${d.url}/lab/boxes/${box}/versions/${version}/providers/virtualbox/amd64/vagrant.box`);

let tmp: string;
let d: TestDaemon;
let alice: { token: string; http: HttpClient };
const [a, b, c, e] = [randomBytes(300_000), randomBytes(200_000), randomBytes(150_000), randomBytes(100_000)];

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'boxyard-check-'));
  d = await startTestDaemon();
  alice = await d.user('alice', { orgs: ['lab'] });
  await publishHosted(alice.http, 'lab', 'web', '1.0.0', a);
  await publishHosted(alice.http, 'lab', 'web', '1.1.0', b);
  await publishHosted(alice.http, 'lab', 'web', '1.2.0', c);
  await publishHosted(alice.http, 'lab', 'db', '1.0.0', e);
});
afterAll(async () => {
  await d?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

describe('boxyard check (the daemon serving all along)', () => {
  it('finds nothing wrong in a sound data folder', async () => {
    const r = await check(d.dataDir);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toBe(`checked 4 blobs (750000 bytes, 732.4 KiB) and 4 rows naming blobs: no problems\n`);
  });

  it('reports a corrupt blob, a row whose blob was deleted and a wrong size in words, exits 1, and changes nothing', async () => {
    flipByte(blobFile(d.dataDir, sha256(a)));
    rmSync(blobFile(d.dataDir, sha256(b)));
    await d.deps.db
      .updateTable('box_providers')
      .set({ size: c.length + 1 })
      .where('blob_sha256', '=', sha256(c))
      .execute();
    const before = await d.deps.db.selectFrom('box_providers').selectAll().orderBy('id').execute();

    const r = await check(d.dataDir);
    expect(r.code).toBe(1);
    expect(
      r.stdout
        .split('\n')
        .filter((l) => l.startsWith('problem: '))
        .sort(),
    ).toEqual(
      [
        `problem: The blob ${sha256(a)} is corrupt: its ${a.length} bytes hash to ${sha256(readFileSync(blobFile(d.dataDir, sha256(a))))}.`,
        `problem: The provider virtualbox (amd64) of lab/web 1.0.0 names the blob ${sha256(a)}, which is corrupt.`,
        `problem: The provider virtualbox (amd64) of lab/web 1.1.0 names the blob ${sha256(b)}, which is missing.`,
        `problem: The provider virtualbox (amd64) of lab/web 1.2.0 records a size of ${c.length + 1} bytes, but its blob ${sha256(c)} holds ${c.length} (and is intact).`,
      ].sort(),
    );
    expect(r.stdout).toContain('and 4 rows naming blobs: 4 problems\n');
    expect(r.stdout).toContain(`to repair: boxyard check --data ${d.dataDir} --repair`);
    expect(r.stdout).not.toContain('repaired:');
    // Read-only: the rows, the corrupt blob where it was, no quarantine.
    expect(await d.deps.db.selectFrom('box_providers').selectAll().orderBy('id').execute()).toEqual(before);
    expect(existsSync(blobFile(d.dataDir, sha256(a)))).toBe(true);
    expect(existsSync(join(d.dataDir, 'quarantine'))).toBe(false);
  });

  it('--repair quarantines the corrupt blob, marks providers without a file not uploaded, fixes the size; a second check passes', async () => {
    const r = await check(d.dataDir, '--repair');
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const quarantined = readdirSync(join(d.dataDir, 'quarantine'));
    expect(quarantined).toHaveLength(1);
    expect(quarantined[0].startsWith(`${sha256(a)}.`)).toBe(true);
    const qPath = join(d.dataDir, 'quarantine', quarantined[0]);
    expect(r.stdout).toContain(`  repaired: moved to ${qPath}\n`);
    expect(
      r.stdout.match(
        / {2}repaired: the provider is marked not uploaded \(left out of the catalog\) until its file is uploaded again/g,
      ),
    ).toHaveLength(2);
    expect(r.stdout).toContain(`  repaired: recorded the blob's size, ${c.length} bytes\n`);
    expect(r.stdout).toContain('repaired: everything left is consistent\n');
    expect(statSync(qPath).mode & 0o777).toBe(0o600);
    expect(statSync(join(d.dataDir, 'quarantine')).mode & 0o777).toBe(0o700);
    expect(existsSync(blobFile(d.dataDir, sha256(a)))).toBe(false);

    expect(await providerRow(d, 'web', '1.0.0')).toMatchObject({ blob_sha256: null, size: null });
    expect(await providerRow(d, 'web', '1.1.0')).toMatchObject({ blob_sha256: null, size: null });
    expect(await providerRow(d, 'web', '1.2.0')).toMatchObject({ blob_sha256: sha256(c), size: c.length });
    // What vagrant sees from the daemon that served all along: no file offered that is not there.
    const catalog = await d.http.get('/lab/web');
    const offered = Object.fromEntries(
      catalog.json.versions.map((v: { version: string; providers: unknown[] }) => [v.version, v.providers.length]),
    );
    expect(offered).toEqual({ '1.0.0': 0, '1.1.0': 0, '1.2.0': 1 });
    const gone = await download(d, 'web', '1.0.0');
    expect(gone.status).toBe(404);
    expect(gone.text).toContain('No box file has been uploaded');
    expect((await download(d, 'web', '1.2.0')).body.equals(c)).toBe(true);

    const again = await check(d.dataDir);
    expect(again.code, again.stdout).toBe(0);
    expect(again.stdout).toBe(`checked 2 blobs (250000 bytes, 244.1 KiB) and 2 rows naming blobs: no problems\n`);
  });

  it('leaves a repaired provider uploadable again, as Vagrant Cloud does a provider without a file', async () => {
    const prep = await alice.http.get('/api/v2/box/lab/web/version/1.0.0/provider/virtualbox/amd64/upload');
    expect(prep.status, prep.text).toBe(200);
    expect((await rawPut(prep.json.upload_path, a, { 'content-length': String(a.length) })).status).toBe(200);
    expect((await download(d, 'web', '1.0.0')).body.equals(a)).toBe(true);
    expect((await check(d.dataDir)).code).toBe(0);
  });

  it('reopens a direct upload waiting for its callback whose blob went missing: the same URL takes the file again', async () => {
    await createBox(alice.http, 'lab', 'direct');
    const api = await hostedProvider(alice.http, 'lab', 'direct', '1.0.0', { api: 'v2', architecture: 'amd64' });
    const prep = await alice.http.get(`${api}/upload/direct`);
    const f = randomBytes(80_000);
    expect((await rawPut(prep.json.upload_path, f, { 'content-length': String(f.length) })).status).toBe(200);
    rmSync(blobFile(d.dataDir, sha256(f)));

    const r = await check(d.dataDir);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      new RegExp(
        `problem: The direct upload upl-\\w+ \\(waiting for its callback\\) of provider virtualbox \\(amd64\\) of lab/direct 1\\.0\\.0 names the blob ${sha256(f)}, which is missing\\.`,
      ),
    );
    const fixed = await check(d.dataDir, '--repair');
    expect(fixed.code, fixed.stdout).toBe(0);
    expect(fixed.stdout).toContain(
      '  repaired: the direct upload is open again: PUT the file to its upload URL again\n',
    );

    expect((await rawPut(prep.json.upload_path, f, { 'content-length': String(f.length) })).status).toBe(200);
    expect((await alice.http.put(new URL(prep.json.callback).pathname)).status).toBe(200);
    expect((await alice.http.put('/api/v2/box/lab/direct/version/1.0.0/release')).status).toBe(200);
    expect((await download(d, 'direct', '1.0.0')).body.equals(f)).toBe(true);
  });
});

describe('boxyard check --repair on a pull-through cache', () => {
  let up: TestDaemon;
  let cache: TestDaemon;
  const v = randomBytes(120_000);
  beforeAll(async () => {
    up = await startTestDaemon();
    const http = up.http.withToken(up.adminToken);
    await http.post('/api/boxyard/organizations', { organization: { name: 'bento' } });
    await publishHosted(http, 'bento', 'debian', '1.0.0', v);
    cache = await startTestDaemon({ config: { upstream: up.url } });
  });
  afterAll(async () => {
    await cache?.stop();
    await up?.stop();
  });

  const url = () => `${cache.url}/bento/boxes/debian/versions/1.0.0/providers/virtualbox/amd64/vagrant.box`;
  const stored = async () =>
    (
      await cache.deps.db
        .selectFrom('box_providers')
        .select('blob_sha256')
        .where('source_url', 'is not', null)
        .executeTakeFirst()
    )?.blob_sha256 ?? null;

  it('forgets a cached file whose blob is gone, and the cache fetches it from the upstream again', async () => {
    expect((await cache.http.get('/bento/debian')).status).toBe(200);
    expect((await rawGet(url())).body.equals(v)).toBe(true);
    await waitFor(async () => (await stored()) === sha256(v));
    rmSync(blobFile(cache.dataDir, sha256(v)));

    const r = await check(cache.dataDir);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      `problem: The provider virtualbox (amd64) of bento/debian 1.0.0 names the blob ${sha256(v)}, which is missing.`,
    );
    const fixed = await check(cache.dataDir, '--repair');
    expect(fixed.code, fixed.stdout).toBe(0);
    expect(fixed.stdout).toContain(
      '  repaired: the pull-through cache fetches the file from its upstream again on the next download\n',
    );
    expect(await stored()).toBeNull();

    expect((await rawGet(url())).body.equals(v)).toBe(true);
    await waitFor(async () => (await stored()) === sha256(v));
    expect((await check(cache.dataDir)).code).toBe(0);
  });
});

describe('boxyard check on a stopped data folder', () => {
  let dir: string;
  beforeAll(async () => {
    dir = join(tmp, 'stopped');
    const s = await startTestDaemon({ dataDir: dir });
    await s.stop();
  });

  it('makes a finished file of an unfinished mirror job whose blob is gone pending again, so the job fetches it again', async () => {
    const sha = sha256(Buffer.from('never stored'));
    const db = new SqliteDatabase(join(dir, 'boxyard.db'));
    const now = new Date().toISOString();
    db.prepare(
      "INSERT INTO upstreams (id, name, name_key, kind, url, created_at, updated_at) VALUES ('up-1', 'up', 'up', 'catalog', 'http://127.0.0.1:9/box.json', ?, ?)",
    ).run(now, now);
    db.prepare(
      "INSERT INTO mirrors (id, upstream_id, source, target, created_at, updated_at) VALUES ('mir-1', 'up-1', 'lab/web', 'lab/web', ?, ?)",
    ).run(now, now);
    db.prepare(
      "INSERT INTO mirror_jobs (id, mirror_id, state, created_at, updated_at) VALUES ('job-1', 'mir-1', 'queued', ?, ?)",
    ).run(now, now);
    db.prepare(
      "INSERT INTO mirror_files (id, job_id, url, state, blob_sha256, blob_size, bytes_done) VALUES ('mf-1', 'job-1', 'http://127.0.0.1:9/web.box', 'done', ?, 12, 12)",
    ).run(sha);
    db.close();

    const r = await check(dir);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      `problem: The file http://127.0.0.1:9/web.box of mirror job job-1 (not published yet) names the blob ${sha}, which is missing.`,
    );
    const fixed = await check(dir, '--repair');
    expect(fixed.code, fixed.stdout).toBe(0);
    expect(fixed.stdout).toContain('  repaired: the mirror job downloads the file again\n');
    const after = new SqliteDatabase(join(dir, 'boxyard.db'), { readonly: true });
    expect(
      after.prepare("SELECT state, blob_sha256, blob_size, bytes_done FROM mirror_files WHERE id = 'mf-1'").get(),
    ).toEqual({ state: 'pending', blob_sha256: null, blob_size: null, bytes_done: 0 });
    after.close();
  });

  it('says a damaged database cannot be repaired and a backup must be restored; exits 1 with or without --repair', async () => {
    const file = join(dir, 'boxyard.db');
    const bytes = readFileSync(file);
    // Overwrite the headers of a few pages after the first (the schema stays readable to open the file).
    for (const page of [3, 4, 5, 6]) bytes.fill(0xff, (page - 1) * 4096, (page - 1) * 4096 + 16);
    writeFileSync(file, bytes);
    for (const flags of [[], ['--repair']]) {
      const r = await check(dir, ...flags);
      expect(r.code).toBe(1);
      expect(r.stdout).toContain(`problem: The database ${file} is damaged (`);
      expect(r.stdout).toContain(
        'Repair cannot fix that: stop the daemon, keep a copy of the data folder as it is, and restore the last backup into a new folder (boxyard restore --data NEWDIR BACKUP).',
      );
      expect(r.stdout).toContain('the database cannot be repaired: stop the daemon and restore a backup');
    }
    const b2 = await runCli(['backup', '--data', dir, join(tmp, 'of-damaged')]);
    expect(b2.code).toBe(1);
    expect(b2.stderr).toContain(`The database ${file} is damaged`);
    expect(existsSync(join(tmp, 'of-damaged'))).toBe(false);
  });

  it('says what to do when the folder holds no database', async () => {
    const r = await check(join(tmp, 'nothing-here'));
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `boxyard: There is no database at ${join(tmp, 'nothing-here', 'boxyard.db')}: is this a Boxyard data folder (--data)?\n`,
    );
  });
});
