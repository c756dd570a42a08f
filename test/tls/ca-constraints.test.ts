import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:https';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OverviewAnswer, type LocalCaJson } from '../../daemon/src/contract/wire/overview';
import { localCaOf, startTestDaemon, type TestDaemon } from '../helpers/daemon';
import { runCli } from '../helpers/cli';
import { LocalCa } from '../../daemon/src/tls/local-ca';
import { permittedFor } from '../../daemon/src/tls/name-constraints';

// --tls auto's CA carries critical name constraints, so that its key signs for LAN names
// only; a CA made before keeps working and is advised to be replaced; boxyard tls new-ca does it.

const run = promisify(execFile);
const short = hostname().split('.')[0].toLowerCase();
const tlsDir = (dataDir: string) => join(dataDir, 'tls');

/**
 * A server certificate for `san` (`DNS:…`, `IP:…`) signed directly with a CA's key, by openssl: what a thief of the key
 * would make.
 */
async function signWithCaKey(caDir: string, san: string): Promise<{ cert: string; key: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'boxyard-leaf-'));
  const [key, csr, ext, cert] = ['key.pem', 'req.csr', 'ext.cnf', 'cert.pem'].map((f) => join(dir, f));
  await run('openssl', [
    'req',
    '-new',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    key,
    '-subj',
    '/CN=leaf',
    '-out',
    csr,
  ]);
  writeFileSync(ext, `subjectAltName=${san}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`);
  await run('openssl', [
    'x509',
    '-req',
    '-in',
    csr,
    '-CA',
    join(caDir, 'ca.pem'),
    '-CAkey',
    join(caDir, 'ca-key.pem'),
    '-set_serial',
    `0x${randomBytes(8).toString('hex')}`,
    '-days',
    '2',
    '-extfile',
    ext,
    '-out',
    cert,
  ]);
  return { cert, key };
}

/** `openssl verify` of a leaf against a CA: its last line (`…: OK`, or the error). */
async function verify(caFile: string, cert: string): Promise<string> {
  const r = await run('openssl', ['verify', '-CAfile', caFile, cert]).catch(
    (err: { stdout: string; stderr: string }) => err,
  );
  return `${r.stdout}${r.stderr}`.trim();
}

/**
 * curl over HTTPS to `name` (resolved to 127.0.0.1) with `caFile` as its only CA: exit code (60: the certificate
 * refused) and body or error.
 */
async function curl(name: string, port: number, caFile: string, path = '/'): Promise<{ code: number; out: string }> {
  return run('curl', [
    '-sS',
    '--max-time',
    '20',
    '--resolve',
    `${name}:${port}:127.0.0.1`,
    '--cacert',
    caFile,
    `https://${name}:${port}${path}`,
  ]).then(
    (r) => ({ code: 0, out: r.stdout }),
    (err: { code: number; stderr: string }) => ({ code: err.code, out: err.stderr }),
  );
}

/** An HTTPS server on 127.0.0.1 with a certificate of the test's making. */
function serveWith(leaf: { cert: string; key: string }): Promise<Server> {
  const s = createServer({ cert: readFileSync(leaf.cert), key: readFileSync(leaf.key) }, (_req, res) =>
    res.end('served\n'),
  );
  return new Promise((resolve) => s.listen(0, '127.0.0.1', () => resolve(s)));
}
const portOf = (s: Server | string) =>
  typeof s === 'string' ? Number(new URL(s).port) : (s.address() as { port: number }).port;

/** A daemon whose log lines are kept, to read what it said at start. */
async function daemonWithLog(
  dataDir: string,
  config: Parameters<typeof startTestDaemon>[0] = {},
): Promise<{ d: TestDaemon; log: Array<{ level: number; msg: string; names?: string[] }> }> {
  const log: Array<{ level: number; msg: string; names?: string[] }> = [];
  const d = await startTestDaemon({
    ...config,
    dataDir,
    log: pino({ level: 'info' }, { write: (line: string) => void log.push(JSON.parse(line)) }),
  });
  return { d, log };
}

async function localCa(d: TestDaemon): Promise<LocalCaJson | null | undefined> {
  const answer = OverviewAnswer.parse((await d.http.withToken(d.adminToken).get('/api/boxyard/overview')).json);
  return answer.overview.tls?.local_ca;
}

const WARN = 40;

describe("--tls auto's CA is name-constrained", () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'boxyard-nc-'));
  const caFile = join(tlsDir(dataDir), 'ca.pem');
  let d: TestDaemon;
  let log: Awaited<ReturnType<typeof daemonWithLog>>['log'];
  const servers: Server[] = [];

  beforeAll(async () => {
    ({ d, log } = await daemonWithLog(dataDir, { config: { tls: 'auto' } }));
  });
  afterAll(async () => {
    for (const s of servers) s.close();
    await d?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('openssl shows a critical Name Constraints extension with the LAN names, the host name and the LAN ranges', async () => {
    const text = (await run('openssl', ['x509', '-in', caFile, '-noout', '-text'])).stdout;
    expect(text).toContain('X509v3 Name Constraints: critical');
    const names = (from: string, to?: string) =>
      text
        .slice(text.indexOf(from), to && text.includes(to) ? text.indexOf(to) : undefined)
        .split('\n')
        .slice(1)
        .map((l) => l.trim())
        .filter((l) => /^(DNS|IP):/.test(l));
    const permitted = names('Permitted:', 'Excluded:');
    expect(permitted).toEqual([
      'DNS:local',
      'DNS:localhost',
      'DNS:home.arpa',
      'DNS:internal',
      'DNS:lan',
      ...(hostname().toLowerCase() === 'localhost' ? [] : [`DNS:${hostname().toLowerCase()}`]),
      'IP:127.0.0.0/255.0.0.0',
      'IP:0:0:0:0:0:0:0:1/FFFF:FFFF:FFFF:FFFF:FFFF:FFFF:FFFF:FFFF',
      'IP:10.0.0.0/255.0.0.0',
      'IP:172.16.0.0/255.240.0.0',
      'IP:192.168.0.0/255.255.0.0',
      'IP:100.64.0.0/255.192.0.0',
      'IP:169.254.0.0/255.255.0.0',
      'IP:FC00:0:0:0:0:0:0:0/FE00:0:0:0:0:0:0:0',
      'IP:FE80:0:0:0:0:0:0:0/FFC0:0:0:0:0:0:0:0',
    ]);
    // A single-label host name (this machine's, as CI's often are) is that name only, not a top-level domain.
    const host = hostname().toLowerCase();
    const single = !host.includes('.') && !['local', 'localhost', 'internal', 'lan'].includes(host);
    if (single) expect(names('Excluded:')).toEqual([`DNS:.${host}`]);
    else expect(text).not.toContain('Excluded:');
  });

  it("curl accepts the daemon's own certificate by each of its names, and refuses one its key signed for a name outside", async () => {
    const port = portOf(d.url);
    for (const name of ['localhost', '127.0.0.1'])
      expect(await curl(name, port, caFile, '/healthz'), name).toMatchObject({
        code: 0,
        out: expect.stringContaining('"status"'),
      });
    // Listening on 127.0.0.1, the daemon does not answer to HOST.local, and its certificate does not name it either
    // (60: no name matches).
    expect((await curl(`${short}.local`, port, caFile, '/healthz')).code).toBe(60);
    // What a thief of ca-key.pem would make: a certificate for a public site, served on 127.0.0.1.
    const evil = await serveWith(await signWithCaKey(tlsDir(dataDir), 'DNS:evil.example.com'));
    servers.push(evil);
    const refused = await curl('evil.example.com', portOf(evil), caFile);
    expect(refused.code).toBe(60);
    expect(refused.out).toMatch(/permitted subtree violation/);
    // The same key's certificates for LAN names pass: `lab.local` under `local`, and `local` itself.
    for (const name of ['lab.local', 'local', 'nas.home.arpa']) {
      const lan = await serveWith(await signWithCaKey(tlsDir(dataDir), `DNS:${name}`));
      servers.push(lan);
      expect(await curl(name, portOf(lan), caFile), name).toEqual({ code: 0, out: 'served\n' });
    }
    // Not a suffix of the text: `xlocal` is not under `local`.
    const near = await serveWith(await signWithCaKey(tlsDir(dataDir), 'DNS:xlocal'));
    servers.push(near);
    expect((await curl('xlocal', portOf(near), caFile)).code).toBe(60);
  });

  it('addresses: a LAN address passes, a public one is refused', async () => {
    expect(await verify(caFile, (await signWithCaKey(tlsDir(dataDir), 'IP:192.168.7.7')).cert)).toMatch(/: OK$/);
    expect(await verify(caFile, (await signWithCaKey(tlsDir(dataDir), 'IP:fd00::7')).cert)).toMatch(/: OK$/);
    expect(await verify(caFile, (await signWithCaKey(tlsDir(dataDir), 'IP:8.8.8.8')).cert)).toMatch(
      /permitted subtree violation/,
    );
    expect(
      await verify(caFile, (await signWithCaKey(tlsDir(dataDir), 'DNS:lab.local,DNS:evil.example.com')).cert),
    ).toMatch(/permitted subtree violation/);
  });

  it('the overview says the CA is name-constrained, with nothing left out and nothing to do; the start warned of nothing', async () => {
    expect(await localCa(d)).toEqual({ name_constrained: true, names_outside: [], replace: null, replaced: null });
    expect(log.filter((l) => l.level >= WARN)).toEqual([]);
  });

  it('a public URL outside the constraints, given later: left out of the certificate, warned of, and a new CA advised', async () => {
    await d.stop();
    ({ d, log } = await daemonWithLog(dataDir, {
      config: { tls: 'auto', publicUrl: 'https://boxes.example.org:4780' },
    }));
    expect(await localCa(d)).toEqual({
      name_constrained: true,
      names_outside: ['boxes.example.org'],
      replace: 'names_outside',
      replaced: null,
    });
    expect(log.filter((l) => l.level >= WARN)).toEqual([
      expect.objectContaining({
        names: ['boxes.example.org'],
        msg: expect.stringMatching(
          /leave out boxes\.example\.org.*boxyard tls new-ca --data .*npx boxyard trust https:\/\/boxes\.example\.org:4780 --fingerprint NEW/,
        ),
      }),
    ]);
    const served = (
      await run('openssl', ['x509', '-in', join(tlsDir(dataDir), 'server.pem'), '-noout', '-ext', 'subjectAltName'])
    ).stdout;
    expect(served).toContain('DNS:localhost');
    expect(served).not.toContain('boxes.example.org');
    expect(await curl('localhost', portOf(d.url), caFile, '/healthz')).toMatchObject({ code: 0 });
  });
});

describe('a CA made before name constraints, and boxyard tls new-ca', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'boxyard-old-ca-'));
  const oldCaFile = join(dataDir, 'old-ca.pem');
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  beforeAll(async () => {
    // The old way (tls/local-ca.ts before its CAs had name constraints): P-256, CA:TRUE pathlen 0, keyCertSign and
    // cRLSign, no name constraints.
    const dir = tlsDir(dataDir);
    mkdirSync(dir, { mode: 0o700 });
    await run('openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      join(dir, 'ca-key.pem'),
      '-out',
      join(dir, 'ca.pem'),
      '-subj',
      '/CN=Boxyard local CA/O=Boxyard',
      '-days',
      '3650',
      '-addext',
      'basicConstraints=critical,CA:TRUE,pathlen:0',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ]);
    chmodSync(join(dir, 'ca-key.pem'), 0o600);
    copyFileSync(join(dir, 'ca.pem'), oldCaFile);
  });

  it('keeps working as it was: it signs for any name, and the overview and the start advise replacing it', async () => {
    const { d, log } = await daemonWithLog(dataDir, { config: { tls: 'auto' } });
    try {
      expect((await run('openssl', ['x509', '-in', oldCaFile, '-noout', '-text'])).stdout).not.toContain(
        'Name Constraints',
      );
      expect(localCaOf(d).pem).toBe(readFileSync(oldCaFile, 'utf8'));
      expect(await curl('localhost', portOf(d.url), oldCaFile, '/healthz')).toMatchObject({ code: 0 });
      // Its key signs for any site, which is why it should go.
      expect(await verify(oldCaFile, (await signWithCaKey(tlsDir(dataDir), 'DNS:evil.example.com')).cert)).toMatch(
        /: OK$/,
      );
      expect(await localCa(d)).toEqual({
        name_constrained: false,
        names_outside: [],
        replace: 'unconstrained',
        replaced: null,
      });
      expect(log.filter((l) => l.level >= WARN)).toEqual([
        expect.objectContaining({ msg: expect.stringMatching(/no name constraints.*boxyard tls new-ca --data /) }),
      ]);
    } finally {
      await d.stop();
    }
  });

  it('boxyard tls new-ca makes a constrained CA with a new fingerprint; after a restart the daemon serves a certificate from it, never the old one', async () => {
    const dir = tlsDir(dataDir);
    const oldFingerprint = (
      await run('openssl', ['x509', '-in', oldCaFile, '-noout', '-fingerprint', '-sha256'])
    ).stdout
      .trim()
      .split('=')[1];
    // The old CA's server certificate, kept aside: a daemon still running on the old CA could write one again after the
    // command.
    const stale = { cert: join(dataDir, 'stale.pem'), key: join(dataDir, 'stale-key.pem') };
    copyFileSync(join(dir, 'server.pem'), stale.cert);
    copyFileSync(join(dir, 'server-key.pem'), stale.key);

    const made = await runCli(['tls', 'new-ca', '--data', dataDir]);
    expect(made.code, made.stderr).toBe(0);
    const newFingerprint = /fingerprint \(SHA-256\): (\S+)/.exec(made.stdout)?.[1];
    expect(newFingerprint).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    assert(newFingerprint, `no fingerprint in: ${made.stdout}`);
    expect(newFingerprint).not.toBe(oldFingerprint);
    expect(made.stdout).toContain(
      `npx boxyard trust https://${hostname()}:4780 --fingerprint ${newFingerprint.replace(/:/g, '')}`,
    );
    expect(existsSync(join(dir, 'server.pem'))).toBe(false);
    expect((await run('openssl', ['x509', '-in', join(dir, 'ca.pem'), '-noout', '-text'])).stdout).toContain(
      'X509v3 Name Constraints: critical',
    );

    copyFileSync(stale.cert, join(dir, 'server.pem'));
    copyFileSync(stale.key, join(dir, 'server-key.pem'));
    const { d, log } = await daemonWithLog(dataDir, { config: { tls: 'auto' } });
    try {
      expect(localCaOf(d).fingerprint).toBe(newFingerprint);
      const newCaFile = join(dir, 'ca.pem');
      expect(await curl('localhost', portOf(d.url), newCaFile, '/healthz')).toMatchObject({ code: 0 });
      expect((await curl('localhost', portOf(d.url), oldCaFile, '/healthz')).code).toBe(60);
      expect(readFileSync(join(dir, 'server.pem'), 'utf8')).not.toBe(readFileSync(stale.cert, 'utf8'));
      expect(await localCa(d)).toEqual({
        name_constrained: true,
        names_outside: [],
        replace: null,
        replaced: { at: expect.stringMatching(/^\d{4}-/), previous_fingerprint: oldFingerprint },
      });
      expect(log).toContainEqual(
        expect.objectContaining({
          msg: expect.stringContaining(`clients that trusted that one must trust this one: npx boxyard trust`),
        }),
      );
      expect(log.filter((l) => l.level >= WARN)).toEqual([]);
      // A client trusts it again with the new fingerprint.
      const bundle = join(dataDir, 'bundle.pem');
      const trusted = await runCli(['trust', d.url, '--fingerprint', newFingerprint, '--out', bundle]);
      expect(trusted.code, trusted.stderr).toBe(0);
      expect(await curl('localhost', portOf(d.url), bundle, '/healthz')).toMatchObject({ code: 0 });
    } finally {
      await d.stop();
    }
  });
});

describe('a CA on a host named like a top-level domain', () => {
  it('permits the host name itself, and openssl refuses what its key signs for a site under it (www.google.dev)', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'boxyard-tld-ca-')), 'tls');
    try {
      await LocalCa.open(
        dir,
        'Boxyard',
        permittedFor({ host: '0.0.0.0', publicUrl: undefined, allowedHosts: [] }, 'dev'),
      );
      const text = (await run('openssl', ['x509', '-in', join(dir, 'ca.pem'), '-noout', '-text'])).stdout;
      expect(text).toMatch(/Excluded:\s+DNS:\.dev/);
      expect(await verify(join(dir, 'ca.pem'), (await signWithCaKey(dir, 'DNS:dev')).cert)).toMatch(/: OK$/);
      expect(await verify(join(dir, 'ca.pem'), (await signWithCaKey(dir, 'DNS:dev.local')).cert)).toMatch(/: OK$/);
      for (const san of ['DNS:www.google.dev', 'DNS:a.dev']) {
        expect(await verify(join(dir, 'ca.pem'), (await signWithCaKey(dir, san)).cert), san).toMatch(
          /excluded subtree violation/,
        );
      }
    } finally {
      rmSync(join(dir, '..'), { recursive: true, force: true });
    }
  });
});
