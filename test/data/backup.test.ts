import { randomBytes } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { PassThrough } from 'node:stream';
import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backup } from '../../daemon/src/data/backup';
import { ManualClock } from '../../daemon/src/lib/clock';
import { runCli, type CliResult } from '../helpers/cli';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient } from '../helpers/http';
import { publishHosted, sha256 } from '../helpers/mirror';
import { rawGet, rawPut } from '../helpers/upload';

const VAGRANT = { 'user-agent': 'Vagrant/2.4.1 (+https://www.vagrantup.com; ruby3.1.2)' };

/** Every file and folder under `root` with its permission bits. */
function modes(root: string): Array<{ path: string; dir: boolean; mode: number }> {
  const out: Array<{ path: string; dir: boolean; mode: number }> = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const s = statSync(path);
      out.push({ path: relative(root, path), dir: s.isDirectory(), mode: s.mode & 0o777 });
      if (s.isDirectory()) walk(path);
    }
  };
  walk(root);
  return out;
}

function expectPrivate(root: string): void {
  expect(statSync(root).mode & 0o777).toBe(0o700);
  for (const e of modes(root))
    expect({ path: e.path, mode: e.mode.toString(8) }).toEqual({ path: e.path, mode: e.dir ? '700' : '600' });
}

/** Flips one byte of a file in place. */
function flipByte(path: string, at = 100): void {
  const b = readFileSync(path);
  b[at] ^= 0xff;
  writeFileSync(path, b);
}

const blobFile = (dataDir: string, sha: string) => join(dataDir, 'blobs', 'sha256', sha.slice(0, 2), sha);
const manifestOf = (dir: string) =>
  JSON.parse(readFileSync(join(dir, 'boxyard-backup.json'), 'utf8')) as {
    database: string;
    files: Array<{ path: string; size: number; sha256: string }>;
  };

async function waitFor(check: () => Promise<boolean>): Promise<void> {
  const until = Date.now() + 20_000;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not reached in 20 s');
    await new Promise((r) => setTimeout(r, 20));
  }
}

let tmp: string;
let d: TestDaemon;
let alice: { token: string; http: HttpClient };
const a = randomBytes(300_000);
const b = randomBytes(200_000);
const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
let dest: string;
let totp: OTPAuth.TOTP;

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'boxyard-backup-'));
  dest = join(tmp, 'backup');
  d = await startTestDaemon();
  alice = await d.user('alice', { orgs: ['lab'] });
  await publishHosted(alice.http, 'lab', 'web', '1.0.0', a);
  await publishHosted(alice.http, 'lab', 'web', '1.1.0', b);
  // Two-factor secrets are sealed with DATA/secret.key: a restore must bring the key with the rows.
  const begin = await alice.http.post('/api/boxyard/two-factor/totp');
  expect(begin.status, begin.text).toBe(201);
  totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(begin.json.two_factor.secret), digits: 6, period: 30 });
  const confirm = await alice.http.post('/api/boxyard/two-factor/totp/confirm', {
    two_factor: { code: totp.generate() },
    current_password: 'alice-password',
  });
  expect(confirm.status, confirm.text).toBe(200);
  // A top-level file of the data folder (like the key that encrypts two-factor secrets) goes along.
  writeFileSync(join(d.dataDir, 'custom-ca.pem'), pem, { mode: 0o600 });
});
afterAll(async () => {
  await d?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

describe('boxyard backup', () => {
  it('copies the data folder while the daemon serves and an upload streams: database, blobs, top-level files, manifest', async () => {
    const api = '/api/v2/box/lab/web/version/1.2.0';
    expect((await alice.http.post('/api/v2/box/lab/web/versions', { version: { version: '1.2.0' } })).status).toBe(200);
    expect(
      (
        await alice.http.post(`${api}/providers`, {
          provider: { name: 'virtualbox', architecture: 'amd64', url: null },
        })
      ).status,
    ).toBe(200);
    const prep = await alice.http.get(`${api}/provider/virtualbox/amd64/upload`);
    const c = randomBytes(2_000_000);
    const body = new PassThrough();
    const put = rawPut(prep.json.upload_path, body, { 'content-length': String(c.length) });
    body.write(c.subarray(0, 1_000_000));
    let r: CliResult;
    try {
      // The PUT is streaming: some of its bytes are in a staging folder under uploads/.
      await waitFor(async () => {
        for await (const s of d.deps.blobStore.listStaged())
          if ((await d.deps.blobStore.stagedSize(s.uploadId)) > 0) return true;
        return false;
      });
      r = await runCli(['backup', '--data', d.dataDir, dest]);
    } finally {
      body.end(c.subarray(1_000_000));
    }
    expect((await put).status).toBe(200);

    expect(r.code, r.stderr).toBe(0);
    const m = manifestOf(dest);
    const total = m.files.reduce((n, f) => n + f.size, 0);
    expect(r.stdout).toContain(`backed up ${d.dataDir} into ${dest}: ${m.files.length} files, ${total} bytes`);
    expect(r.stdout).toContain('the database and 2 blobs');
    expect(r.stdout).toMatch(/left out uploads\/: uploads in progress/);
    expect(m.database).toBe('boxyard.db');
    // The blobs the snapshot names: not the upload that was still streaming.
    expect(
      m.files
        .filter((f) => f.path.startsWith('blobs/'))
        .map((f) => f.sha256)
        .sort(),
    ).toEqual([sha256(a), sha256(b)].sort());
    // Every top-level file but the database's own (its WAL is in the snapshot) goes along.
    const topLevel = readdirSync(d.dataDir, { withFileTypes: true })
      .filter((e) => e.isFile() && !e.name.startsWith('boxyard.db'))
      .map((e) => e.name);
    expect(topLevel).toEqual(expect.arrayContaining(['custom-ca.pem', 'secret.key']));
    for (const name of topLevel)
      expect(m.files.find((f) => f.path === name)?.sha256).toBe(sha256(readFileSync(join(d.dataDir, name))));
    for (const f of m.files) {
      const bytes = readFileSync(join(dest, f.path));
      expect({ path: f.path, size: bytes.length, sha256: sha256(bytes) }).toEqual(f);
    }
    expect(readdirSync(dest).sort()).toEqual(['blobs', 'boxyard-backup.json', 'boxyard.db', ...topLevel].sort());
    expectPrivate(dest);
  });

  it('refuses a folder that is not empty, one inside the data folder, and a data folder without a database, writing nothing', async () => {
    const full = join(tmp, 'full');
    mkdirSync(full);
    writeFileSync(join(full, 'notes.txt'), 'mine');
    const r = await runCli(['backup', '--data', d.dataDir, full]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `boxyard: The backup folder ${full} is not empty (it holds notes.txt). Choose an empty or new folder.`,
    );
    expect(readdirSync(full)).toEqual(['notes.txt']);

    const inside = join(d.dataDir, 'backup');
    const r2 = await runCli(['backup', '--data', d.dataDir, inside]);
    expect(r2.code).toBe(1);
    expect(r2.stderr).toMatch(/is inside the data folder .*: choose a folder outside it/);
    expect(existsSync(inside)).toBe(false);

    const none = join(tmp, 'no-data');
    const r3 = await runCli(['backup', '--data', none, join(tmp, 'of-nothing')]);
    expect(r3.code).toBe(1);
    expect(r3.stderr).toBe(
      `boxyard: There is no database at ${join(none, 'boxyard.db')}: is this a Boxyard data folder (--data)?\n`,
    );
    expect(existsSync(join(tmp, 'of-nothing'))).toBe(false);
  });

  it('fails on a corrupt or missing blob with what to do, leaving nothing that looks like a backup', async () => {
    const e = await startTestDaemon();
    try {
      const http = (await e.user('bob', { orgs: ['team'] })).http;
      const x = randomBytes(100_000);
      const y = randomBytes(100_000);
      await publishHosted(http, 'team', 'x', '1.0.0', x);
      await publishHosted(http, 'team', 'y', '1.0.0', y);
      flipByte(blobFile(e.dataDir, sha256(x)));
      const out1 = join(tmp, 'corrupt');
      const r1 = await runCli(['backup', '--data', e.dataDir, out1]);
      expect(r1.code).toBe(1);
      expect(r1.stderr).toContain(`The blob ${sha256(x)} in ${e.dataDir} is corrupt`);
      expect(r1.stderr).toContain(`Run boxyard check --data ${e.dataDir} --repair, then back up again.`);
      expect(existsSync(out1)).toBe(false);

      rmSync(blobFile(e.dataDir, sha256(x)));
      const out2 = join(tmp, 'missing');
      mkdirSync(out2);
      const r2 = await runCli(['backup', '--data', e.dataDir, out2]);
      expect(r2.code).toBe(1);
      expect(r2.stderr).toContain(
        `The provider virtualbox (amd64) of team/x 1.0.0 names the blob ${sha256(x)}, which is missing from ${e.dataDir}.`,
      );
      // It was empty, and is again.
      expect(readdirSync(out2)).toEqual([]);
    } finally {
      await e.stop();
    }
  });

  it('takes a new snapshot when the collector removes a blob the first one named, and the backup is consistent', async () => {
    const e = await startTestDaemon();
    try {
      const http = (await e.user('carol', { orgs: ['ops'] })).http;
      const keep = randomBytes(50_000);
      const gone = randomBytes(60_000);
      await publishHosted(http, 'ops', 'keep', '1.0.0', keep);
      await publishHosted(http, 'ops', 'gone', '1.0.0', gone);
      const out = join(tmp, 'raced');
      const s = await backup({
        dataDir: e.dataDir,
        databaseFile: join(e.dataDir, 'boxyard.db'),
        dest: out,
        // Between the snapshot and the blob copies: the box is deleted and the collector runs.
        onSnapshot: async (n) => {
          if (n !== 1) return;
          expect((await http.delete('/api/v2/box/ops/gone')).status).toBe(200);
          expect((await e.deps.blobCollector.run({ graceMs: 0 })).blobs).toEqual([sha256(gone)]);
        },
      });
      expect(s).toMatchObject({ snapshots: 2, blobs: 1 });
      expect(
        manifestOf(out)
          .files.filter((f) => f.path.startsWith('blobs/'))
          .map((f) => f.sha256),
      ).toEqual([sha256(keep)]);
      expect(existsSync(blobFile(out, sha256(gone)))).toBe(false);

      const restored = join(tmp, 'raced-restored');
      expect((await runCli(['restore', '--data', restored, out])).code).toBe(0);
      const c = await runCli(['check', '--data', restored]);
      expect(c.code, c.stdout).toBe(0);
      expect(c.stdout).toContain('checked 1 blob (50000 bytes, 48.8 KiB) and 1 row naming blobs: no problems');
    } finally {
      await e.stop();
    }
  });
});

describe('boxyard restore', () => {
  it('restores into a new folder; a daemon on it serves every box byte for byte to a vagrant-style download, with the same accounts and two-factor', async () => {
    const target = join(tmp, 'restored');
    const r = await runCli(['restore', '--data', target, dest]);
    expect(r.code, r.stderr).toBe(0);
    const m = manifestOf(dest);
    expect(r.stdout).toContain(`restored ${m.files.length} files, ${m.files.reduce((n, f) => n + f.size, 0)} bytes`);
    expect(r.stdout).toContain('every file matched its sha256');
    expect(r.stdout).toContain(`start the daemon on it: boxyard serve --data ${target}`);
    expectPrivate(target);
    expect(readFileSync(join(target, 'custom-ca.pem'), 'utf8')).toBe(pem);

    // Five minutes on, so the code below is not the one the confirmation used (each works once).
    const later = new ManualClock(new Date(Date.now() + 300_000));
    const e = await startTestDaemon({ dataDir: target, clock: later });
    try {
      const catalog = await e.http.get('/lab/web', { headers: VAGRANT });
      expect(catalog.status, catalog.text).toBe(200);
      // 1.2.0's file was still streaming when the snapshot was taken: it was never released there.
      expect(catalog.json.versions.map((v: { version: string }) => v.version)).toEqual(['1.1.0', '1.0.0']);
      for (const [version, file] of [
        ['1.0.0', a],
        ['1.1.0', b],
      ] as const) {
        const p = catalog.json.versions.find((v: { version: string }) => v.version === version).providers[0];
        expect(p).toMatchObject({ name: 'virtualbox', checksum_type: 'sha256', checksum: sha256(file) });
        const dl = await rawGet(p.url, VAGRANT);
        expect(dl.status).toBe(200);
        expect(dl.body.equals(file)).toBe(true);
      }
      // The same accounts: alice's token still works, and her authenticator app (secret.key came along).
      expect((await e.http.withToken(alice.token).get('/api/v2/box/lab/web')).status).toBe(200);
      const login = (extra: Record<string, unknown>) =>
        e.http.post('/api/v1/authenticate', { user: { login: 'alice', password: 'alice-password' }, ...extra });
      expect((await login({})).status).toBe(406);
      const signedIn = await login({ two_factor: { code: totp.generate({ timestamp: later.now().getTime() }) } });
      expect(signedIn.status, signedIn.text).toBe(200);
    } finally {
      await e.stop();
    }
  });

  it('refuses a data folder that is not empty and changes nothing in it', async () => {
    const target = join(tmp, 'busy');
    mkdirSync(target);
    writeFileSync(join(target, 'boxyard.db'), "someone else's");
    const r = await runCli(['restore', '--data', target, dest]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `boxyard: The data folder ${target} is not empty (it holds boxyard.db). Choose an empty or new folder.`,
    );
    expect(readdirSync(target)).toEqual(['boxyard.db']);
    expect(readFileSync(join(target, 'boxyard.db'), 'utf8')).toBe("someone else's");
  });

  it('refuses a backup without its manifest (one that stopped half-way), leaving no data folder', async () => {
    const half = join(tmp, 'half');
    cpSync(dest, half, { recursive: true });
    rmSync(join(half, 'boxyard-backup.json'));
    const target = join(tmp, 'from-half');
    const r = await runCli(['restore', '--data', target, half]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${half} is not a complete Boxyard backup: it has no boxyard-backup.json`);
    expect(existsSync(target)).toBe(false);
  });

  it('refuses a damaged backup (a flipped byte, a missing file, a path outside it) and leaves the data folder as found', async () => {
    const bad = join(tmp, 'bad');
    cpSync(dest, bad, { recursive: true });
    flipByte(blobFile(bad, sha256(b)));
    const target = join(tmp, 'from-bad');
    mkdirSync(target);
    const r = await runCli(['restore', '--data', target, bad]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `The backup ${bad} is damaged: the sha256 of blobs/sha256/${sha256(b).slice(0, 2)}/${sha256(b)} is `,
    );
    expect(r.stderr).toContain('Nothing was restored; use another backup.');
    expect(readdirSync(target)).toEqual([]);

    rmSync(blobFile(bad, sha256(b)));
    const r2 = await runCli(['restore', '--data', target, bad]);
    expect(r2.code).toBe(1);
    expect(r2.stderr).toContain(`is damaged: blobs/sha256/${sha256(b).slice(0, 2)}/${sha256(b)} is missing`);
    expect(readdirSync(target)).toEqual([]);

    const m = manifestOf(dest);
    writeFileSync(
      join(bad, 'boxyard-backup.json'),
      JSON.stringify({ ...m, files: [...m.files, { path: '../outside', size: 1, sha256: sha256(a) }] }),
    );
    const r3 = await runCli(['restore', '--data', target, bad]);
    expect(r3.code).toBe(1);
    expect(r3.stderr).toMatch(
      /boxyard-backup\.json is not a Boxyard backup manifest \(files\.\d+\.path: a path of a Boxyard data folder/,
    );
    expect(readdirSync(target)).toEqual([]);
  });
});
