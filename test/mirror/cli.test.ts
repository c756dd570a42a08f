import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient } from '../helpers/http';
import { publishHosted, sha256, waitForJob } from '../helpers/mirror';
import { snapshot } from '../helpers/registry';
import { freePort } from '../helpers/spawn-daemon';
import { slowCatalog } from '../helpers/ui-slow-catalog';
import { makeBoxFile, recordRequests } from '../helpers/vagrant';

const BIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'boxyard.mjs');

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Starts the real CLI (`node bin/boxyard.mjs …`) against a daemon; stdout is a pipe, not a TTY. */
function startCli(
  d: TestDaemon,
  token: string,
  args: string[],
  cwd?: string,
): { child: ChildProcess; done: Promise<CliResult>; stdout(): string } {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd,
    env: { ...process.env, BOXYARD_SERVER: d.url, BOXYARD_TOKEN: token },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (b: Buffer) => {
    stdout += b.toString();
  });
  child.stderr.on('data', (b: Buffer) => {
    stderr += b.toString();
  });
  const done = new Promise<CliResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  return { child, done, stdout: () => stdout };
}

const cli = (d: TestDaemon, token: string, args: string[], cwd?: string) => startCli(d, token, args, cwd).done;

let a: TestDaemon; // the registry boxes are exported from
let tmp: string;
let alice: { token: string; http: HttpClient };
const files: Record<string, Buffer> = {};

/** Every provider's checksum in a daemon's catalog of `box`, keyed by version/provider/arch. */
async function checksums(http: HttpClient, box: string): Promise<Record<string, string>> {
  const r = await http.get(`/${box}`);
  expect(r.status, r.text).toBe(200);
  const out: Record<string, string> = {};
  for (const v of r.json.versions)
    for (const p of v.providers) out[`${v.version}/${p.name}/${p.architecture}`] = `${p.checksum_type}:${p.checksum}`;
  return out;
}

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'boxyard-cli-'));
  a = await startTestDaemon();
  alice = await a.user('alice', { orgs: ['lab'] });
  /** Makes the .box of `box/version/provider/arch` and publishes it on A. */
  const put = async (key: string, opts: { private?: boolean; release?: boolean } = {}) => {
    const [box, version, provider, architecture] = key.split('/');
    files[key] = await makeBoxFile(join(tmp, `${key.replace(/\//g, '_')}.box`), provider, 64 * 1024, architecture);
    await publishHosted(alice.http, 'lab', box, version, files[key], { provider, architecture, ...opts });
  };
  await put('web/1.0.0/virtualbox/amd64');
  await put('web/1.1.0/virtualbox/amd64', { release: false });
  await put('web/1.1.0/libvirt/arm64');
  await put('db/2.0.0/virtualbox/arm64', { private: true });
  expect(
    (await alice.http.put('/api/v1/box/lab/web', { box: { description: 'The **web** server box.' } })).status,
  ).toBe(200);
});
afterAll(async () => {
  await a?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

describe('boxyard import (.box files)', () => {
  let b: TestDaemon;
  beforeAll(async () => {
    b = await startTestDaemon();
  });
  afterAll(() => b.stop());

  it('imports one .box file into a released version; provider and architecture come from its metadata.json', async () => {
    const file = join(tmp, 'web_1.0.0_virtualbox_amd64.box');
    const r = await cli(b, b.adminToken, ['import', file, '--as', 'admin/single', '--version', '1.0.0']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^progress: /m);
    expect(r.stdout).toContain('imported web_1.0.0_virtualbox_amd64.box as virtualbox/amd64 into admin/single 1.0.0');
    expect(r.stdout).toContain('released admin/single 1.0.0');
    expect(await checksums(b.http.withToken(b.adminToken), 'admin/single')).toEqual({
      '1.0.0/virtualbox/amd64': `sha256:${sha256(files['web/1.0.0/virtualbox/amd64'])}`,
    });
  });

  it('imports a folder of .box files as the providers of one version', async () => {
    const dir = join(tmp, 'loose');
    mkdirSync(dir);
    cpSync(join(tmp, 'web_1.1.0_libvirt_arm64.box'), join(dir, 'a.box'));
    cpSync(join(tmp, 'db_2.0.0_virtualbox_arm64.box'), join(dir, 'b.box'));
    writeFileSync(join(dir, 'README.txt'), 'not a box');
    const r = await cli(b, b.adminToken, ['import', dir, '--as', 'admin/pair', '--version', '3.0.0', '--no-release']);
    expect(r.code, r.stderr).toBe(0);
    const v = await b.http.withToken(b.adminToken).get('/api/v2/box/admin/pair/version/3.0.0');
    expect(v.json.status).toBe('unreleased');
    expect(
      v.json.providers
        .map(
          (p: { name: string; architecture: string; checksum: string }) => `${p.name}/${p.architecture}:${p.checksum}`,
        )
        .sort(),
    ).toEqual([
      `libvirt/arm64:${sha256(files['web/1.1.0/libvirt/arm64'])}`,
      `virtualbox/arm64:${sha256(files['db/2.0.0/virtualbox/arm64'])}`,
    ]);
  });

  it('says what is missing: no --as/--version, a bad token, an unreachable daemon', async () => {
    const file = join(tmp, 'web_1.0.0_virtualbox_amd64.box');
    const missing = await cli(b, b.adminToken, ['import', file]);
    expect(missing).toMatchObject({
      code: 1,
      stderr: 'boxyard: importing a .box file needs --as ORG/BOX and --version VERSION.\n',
    });
    const bad = await cli(b, 'nope', ['import', file, '--as', 'admin/x', '--version', '1.0.0']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^boxyard: PUT \/api\/boxyard\/import\/admin\/x\/1\.0\.0: 401 The token is invalid/);
    const closed = await freePort();
    const down = await cli(b, b.adminToken, [
      'import',
      file,
      '--as',
      'admin/x',
      '--version',
      '1.0.0',
      '--server',
      `http://127.0.0.1:${closed}`,
    ]);
    expect(down.code).toBe(1);
    expect(down.stderr).toContain(
      `boxyard: cannot reach the Boxyard daemon at http://127.0.0.1:${closed} (ECONNREFUSED): is it running?`,
    );
  });
});

describe('boxyard export, then import into another daemon', () => {
  let out: string;
  let b: TestDaemon;
  beforeAll(async () => {
    out = join(tmp, 'export');
    b = await startTestDaemon();
  });
  afterAll(() => b.stop());

  it('--dry-run prints every file and the size needed, and writes nothing', async () => {
    const r = await cli(a, alice.token, ['export', 'lab/web', 'lab/db', '--out', out, '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    const bytes = Object.values(files).reduce((n, f) => n + f.length, 0);
    expect(r.stdout).toContain('lab/web/1.1.0/libvirt-arm64.box');
    expect(r.stdout).toContain(`would write 4 files of 2 boxes to ${out}`);
    expect(r.stdout).toContain(`(${bytes} bytes)`);
    expect(existsSync(out)).toBe(false);
    const picked = await cli(a, alice.token, [
      'export',
      'lab/web',
      '--latest',
      '1',
      '--architecture',
      'arm64',
      '--out',
      out,
      '--dry-run',
    ]);
    expect(picked.stdout.trim().split('\n')[0].trim()).toBe(
      `lab/web/1.1.0/libvirt-arm64.box  ${(files['web/1.1.0/libvirt/arm64'].length / 1024).toFixed(1)} KiB`,
    );
    expect(picked.stdout).toContain('would write 1 file of 1 box');
  });

  it('writes the files, each catalog with relative URLs, and a manifest of sha256s', async () => {
    const r = await cli(a, alice.token, ['export', 'lab/web', 'lab/db', '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`exported lab/web, lab/db to ${out}: 4 files`);
    const manifest = JSON.parse(readFileSync(join(out, 'boxyard-export.json'), 'utf8'));
    expect(manifest).toMatchObject({
      format: 'boxyard-export',
      format_version: 1,
      boxes: [
        { name: 'lab/web', catalog: 'lab/web/metadata.json' },
        { name: 'lab/db', catalog: 'lab/db/metadata.json' },
      ],
    });
    const byPath = Object.fromEntries(
      manifest.files.map((f: { path: string; size: number; sha256: string }) => [f.path, f]),
    );
    for (const [key, file] of Object.entries(files)) {
      const [box, version, provider, arch] = key.split('/');
      expect(byPath[`lab/${box}/${version}/${provider}-${arch}.box`]).toEqual({
        path: `lab/${box}/${version}/${provider}-${arch}.box`,
        size: file.length,
        sha256: sha256(file),
      });
      expect(sha256(readFileSync(join(out, 'lab', box, version, `${provider}-${arch}.box`)))).toBe(sha256(file));
    }
    const web = JSON.parse(readFileSync(join(out, 'lab', 'web', 'metadata.json'), 'utf8'));
    expect(web).toMatchObject({
      name: 'lab/web',
      description: 'The **web** server box.',
      short_description: 'web box',
      private: false,
    });
    expect(web.versions.map((v: { version: string }) => v.version)).toEqual(['1.1.0', '1.0.0']);
    expect(web.versions[0].providers).toEqual(
      expect.arrayContaining([
        {
          name: 'libvirt',
          url: '1.1.0/libvirt-arm64.box',
          checksum: sha256(files['web/1.1.0/libvirt/arm64']),
          checksum_type: 'sha256',
          architecture: 'arm64',
          default_architecture: true,
        },
      ]),
    );
    expect(JSON.parse(readFileSync(join(out, 'lab', 'db', 'metadata.json'), 'utf8'))).toMatchObject({
      private: true,
      versions: [{ version: '2.0.0', providers: [{ url: '2.0.0/virtualbox-arm64.box' }] }],
    });
  });

  it('resumes into the same folder with Range, drops a .part that does not check out, and refuses a folder holding another export', async () => {
    const db = join(out, 'lab', 'db', '2.0.0', 'virtualbox-arm64.box');
    const whole = files['db/2.0.0/virtualbox/arm64'];
    const seen = recordRequests(a.server);
    // A .part of wrong bytes: resumed, then refused by the checksum, and removed.
    rmSync(db);
    writeFileSync(`${db}.part`, Buffer.alloc(1000, 7));
    const wrong = await cli(a, alice.token, ['export', 'lab/db', 'lab/web', '--out', out]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(
      /^boxyard: Checksum mismatch for lab\/db 2\.0\.0 virtualbox\/arm64: its sha256 is [0-9a-f]{64}, the catalog says [0-9a-f]{64}\. The file was removed/,
    );
    expect(existsSync(`${db}.part`)).toBe(false);
    expect(seen.filter((r) => r.range).map((r) => r.range)).toEqual(['bytes=1000-']);
    // A .part holding the file's first bytes: only the rest is fetched.
    writeFileSync(`${db}.part`, whole.subarray(0, 5000));
    const again = await cli(a, alice.token, ['export', 'lab/db', 'lab/web', '--out', out]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('lab/web/1.0.0/virtualbox-amd64.box: already complete');
    expect(again.stdout).toContain('lab/db/2.0.0/virtualbox-arm64.box: resumed at 4.9 KiB');
    expect(seen.filter((r) => r.range).map((r) => r.range)).toEqual(['bytes=1000-', 'bytes=5000-']);
    expect(sha256(readFileSync(db))).toBe(sha256(whole));
    expect(existsSync(`${db}.part`)).toBe(false);
    const other = await cli(a, alice.token, ['export', 'lab/web', '--out', out]);
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/already holds an export of lab\/db, lab\/web/);
  });

  it('a corrupted export is refused before anything is sent', async () => {
    const bad = join(tmp, 'corrupt');
    cpSync(out, bad, { recursive: true });
    const victim = join(bad, 'lab', 'web', '1.0.0', 'virtualbox-amd64.box');
    const bytes = readFileSync(victim);
    bytes[bytes.length >> 1] ^= 0xff;
    writeFileSync(victim, bytes);
    const before = await snapshot(b);
    const r = await cli(b, b.adminToken, ['import', bad, '--as', 'lab2/web']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/--as renames the box of an export that holds one/);
    const c = await cli(b, b.adminToken, ['import', bad]);
    expect(c.code).toBe(1);
    expect(c.stderr).toMatch(
      new RegExp(
        `^boxyard: ${bad} is not a usable export: lab/web/1\\.0\\.0/virtualbox-amd64\\.box has sha256 [0-9a-f]{64}, the manifest says ${sha256(files['web/1.0.0/virtualbox/amd64'])}\\. Nothing was imported`,
      ),
    );
    expect(await snapshot(b)).toEqual(before);
  });

  it('imports the export into a fresh daemon with every checksum kept, released, descriptions and privacy too', async () => {
    const r = await cli(b, b.adminToken, ['import', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('created organization lab');
    expect(r.stdout).toContain('verified 4 files against the manifest');
    const ha = alice.http;
    const hb = b.http.withToken(b.adminToken);
    for (const box of ['lab/web', 'lab/db']) expect(await checksums(hb, box)).toEqual(await checksums(ha, box));
    expect(Object.keys(await checksums(hb, 'lab/web')).sort()).toEqual([
      '1.0.0/virtualbox/amd64',
      '1.1.0/libvirt/arm64',
      '1.1.0/virtualbox/amd64',
    ]);
    expect((await hb.get('/api/v1/box/lab/web')).json).toMatchObject({
      description_markdown: 'The **web** server box.',
      short_description: 'web box',
      private: false,
    });
    expect((await b.http.get('/lab/db')).status).toBe(404); // private stays private
    // A second run finds everything there and changes nothing.
    const before = await snapshot(b);
    const again = await cli(b, b.adminToken, ['import', out]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('lab/web 1.1.0 libvirt/arm64 is already there');
    expect(await snapshot(b)).toEqual(before);
  });
});

describe('boxyard mirror', () => {
  let b: TestDaemon;
  beforeAll(async () => {
    b = await startTestDaemon();
  });
  afterAll(() => b.stop());

  it('mirrors from an export folder given as a relative path, and prints what it published', async () => {
    const r = await cli(
      b,
      b.adminToken,
      ['mirror', '--upstream', 'export', 'lab/web', '--as', 'air/web', '--latest', '1'],
      tmp,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^mirroring lab\/web into air\/web \(mirror mir-\S+, job job-\S+\)$/m);
    expect(r.stdout).toContain('published air/web 1.1.0');
    expect(await checksums(b.http, 'air/web')).toEqual({
      '1.1.0/libvirt/arm64': `sha256:${sha256(files['web/1.1.0/libvirt/arm64'])}`,
      '1.1.0/virtualbox/amd64': `sha256:${sha256(files['web/1.1.0/virtualbox/amd64'])}`,
    });
    const mirrors = (await b.http.withToken(b.adminToken).get('/api/boxyard/mirrors')).json.mirrors;
    expect(mirrors[0]).toMatchObject({
      upstream: { url: join(tmp, 'export'), kind: 'folder' },
      source: 'lab/web',
      target: 'air/web',
      latest: 1,
    });
  });

  it('exits 1 with the job message when the job fails, and --detach only prints the ids', async () => {
    const r = await cli(b, b.adminToken, ['mirror', '--upstream', join(tmp, 'export'), 'lab/none', '--as', 'air/none']);
    expect(r.code).toBe(1);
    // The plan (read before anything is made) finds no such box.
    expect(r.stderr).toMatch(/^boxyard: .*The upstream has no box lab\/none/m);
    expect(
      (await b.http.withToken(b.adminToken).get('/api/boxyard/mirrors')).json.mirrors.map(
        (m: { target: string }) => m.target,
      ),
    ).not.toContain('air/none');
    const d = await cli(b, b.adminToken, [
      'mirror',
      '--upstream',
      join(tmp, 'export'),
      'lab/db',
      '--as',
      'air/db',
      '--detach',
    ]);
    expect(d.code, d.stderr).toBe(0);
    const [mirror, job] = d.stdout.trim().split('\n');
    expect(mirror).toMatch(/^mirror mir-\S+$/);
    expect(job).toMatch(/^job job-\S+$/);
    expect((await waitForJob(b.http.withToken(b.adminToken), job.slice(4))).state).toBe('done');
    expect((await cli(b, b.adminToken, ['mirror', '--upstream', 'no-such-folder', 'lab/db'], tmp)).stderr).toMatch(
      /neither a URL .* nor an existing folder/,
    );
  });

  it('Ctrl-C cancels the running job and exits 130', async () => {
    const slow = await slowCatalog('slow/box', { everyMs: 200, chunk: 16 * 1024 });
    try {
      const run = startCli(b, b.adminToken, ['mirror', '--upstream', slow.url, 'slow/box', '--as', 'air/slow']);
      const http = b.http.withToken(b.adminToken);
      let job: { id: string; state: string; bytes_done: number } | undefined;
      // Once it printed this line the CLI is following the job with its Ctrl-C handler in place.
      while (!(job && job.state === 'running' && job.bytes_done > 0 && run.stdout().includes('mirroring slow/box'))) {
        const mirrors = (await http.get('/api/boxyard/mirrors')).json.mirrors.filter(
          (m: { target: string }) => m.target === 'air/slow',
        );
        job = mirrors[0]?.last_job ?? undefined;
        await new Promise((r) => setTimeout(r, 100));
      }
      run.child.kill('SIGINT');
      const r = await run.done;
      expect(r.code).toBe(130);
      expect(r.stderr).toContain(`boxyard: interrupted: mirror job ${job.id} cancelled`);
      expect((await http.get(`/api/boxyard/mirror-jobs/${job.id}`)).json.job.state).toBe('cancelled');
      expect((await b.http.get('/air/slow')).status).toBe(404);
    } finally {
      await slow.close();
    }
  });
});
