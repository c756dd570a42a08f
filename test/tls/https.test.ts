import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { connect as tlsConnect, type PeerCertificate } from 'node:tls';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localCaOf, startTestDaemon, tlsOf, type TestDaemon } from '../helpers/daemon';
import { expiredCertificate, testCa } from '../helpers/certificates';
import { runCli } from '../helpers/cli';
import { mirrorOnce } from '../helpers/mirror';
import { JSONAPI, createAgentToken, createOrg, createPool, spawnAgent } from '../helpers/agents';

const run = promisify(execFile);

/** The certificate a TLS connection to `url` is served, checked against `ca`. */
function peer(url: string, ca: string): Promise<PeerCertificate> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const s = tlsConnect({ host: u.hostname, port: Number(u.port), ca, servername: 'localhost' }, () => {
      resolve(s.getPeerCertificate());
      s.end();
    });
    s.on('error', reject);
  });
}

/** A kept-alive TLS connection on which requests are asked one after another. */
function keepAlive(url: string, ca: string): Promise<{ ask(path: string): Promise<string>; close(): void }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const s = tlsConnect({ host: u.hostname, port: Number(u.port), ca, servername: 'localhost' }, () =>
      resolve({
        ask: (path) =>
          new Promise((res) => {
            s.once('data', (b) => res(b.toString()));
            s.write(`GET ${path} HTTP/1.1\r\nHost: localhost:${u.port}\r\n\r\n`);
          }),
        close: () => s.destroy(),
      }),
    );
    s.on('error', reject);
  });
}

describe("--tls auto: the daemon's own CA", () => {
  let d: TestDaemon;
  const port = () => Number(new URL(d.url).port);
  const ca = () => readFileSync(join(d.dataDir, 'tls', 'ca.pem'), 'utf8');

  beforeAll(async () => {
    // Agents report every 5 s: longer than undici's default keep-alive (4 s) unless the daemon's hint is read.
    d = await startTestDaemon({ config: { tls: 'auto', agentPingSeconds: 5 } });
  });
  afterAll(async () => {
    await d?.stop();
  });

  it('serves HTTPS with a certificate for every name LAN clients use, from a CA kept private in the data folder', async () => {
    expect(d.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const health = await d.http.get('/healthz');
    expect(health.json.checks.tls).toEqual({ status: 'ok' });
    const cert = await peer(d.url, ca());
    // Listening on 127.0.0.1: the names the daemon answers there (http/own-names.ts), not the machine's, which LAN
    // clients use when it listens on all interfaces.
    expect(cert.subjectaltname).toBe('DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1');
    expect(statSync(join(d.dataDir, 'tls')).mode & 0o777).toBe(0o700);
    expect(statSync(join(d.dataDir, 'tls', 'ca-key.pem')).mode & 0o777).toBe(0o600);
    // Anyone may fetch the CA, as PEM and as DER; its fingerprint is what they check.
    const pem = await d.http.get('/ca.pem');
    expect(pem.status).toBe(200);
    expect(pem.text).toBe(ca());
    expect(localCaOf(d).fingerprint).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    // curl without the CA refuses the daemon; with it, it succeeds.
    await expect(run('curl', ['-sS', '--fail', `${d.url}/healthz`])).rejects.toMatchObject({ code: 60 });
    const caFile = join(d.dataDir, 'tls', 'ca.pem');
    expect((await run('curl', ['-sS', '--fail', '--cacert', caFile, `${d.url}/healthz`])).stdout).toContain(
      '"status":"ok"',
    );
  });

  it("the overview tells the CA's fingerprint and when the certificate ends", async () => {
    const o = (await d.http.withToken(d.adminToken).get('/api/boxyard/overview')).json.overview;
    expect(o.tls).toEqual({
      mode: 'auto',
      fingerprint: localCaOf(d).fingerprint,
      not_after: expect.stringMatching(/^\d{4}-/),
      local_ca: { name_constrained: true, names_outside: [], replace: null, replaced: null },
    });
    expect(Date.parse(o.tls.not_after) - Date.now()).toBeGreaterThan(80 * 86_400_000);
  });

  it('hands out https:// URLs and a Secure session cookie', async () => {
    const admin = d.http.withToken(d.adminToken);
    expect(
      (await admin.post('/api/v1/boxes', { box: { username: 'admin', name: 'web', is_private: false } })).status,
    ).toBe(200);
    expect((await admin.post('/api/v1/box/admin/web/versions', { version: { version: '1.0.0' } })).status).toBe(200);
    expect(
      (
        await admin.post('/api/v1/box/admin/web/version/1.0.0/providers', {
          provider: { name: 'virtualbox', url: null },
        })
      ).status,
    ).toBe(200);
    const up = await admin.get('/api/v1/box/admin/web/version/1.0.0/provider/virtualbox/upload');
    expect(up.json.upload_path).toMatch(new RegExp(`^https://127\\.0\\.0\\.1:${port()}/uploads/`));
    const session = await d.http.post(
      '/api/boxyard/session',
      { user: { login: 'admin', password: 'admin-password-1' } },
      { headers: { 'x-boxyard-csrf': '1' } },
    );
    expect(session.status, session.text).toBe(200);
    expect(session.headers.get('set-cookie')).toMatch(/^__Host-boxyard-session=.*; Secure/);
  });

  it('boxyard agent --ca-file registers and reports over HTTPS on one kept-alive connection; without the CA it cannot connect', async () => {
    const alice = (await d.user('alice')).http.withContentType(JSONAPI);
    await createOrg(alice, 'acme');
    const pool = await createPool(alice, 'acme', 'pool');
    const t = await createAgentToken(alice, pool.id);
    const caFile = join(d.dataDir, 'tls', 'ca.pem');
    // The connections the agent's requests came on: one handshake for all of them.
    const sockets = new Set<unknown>();
    let requests = 0;
    const seen = (req: IncomingMessage) => {
      if (req.url?.startsWith('/api/agent/')) {
        requests++;
        sockets.add(req.socket);
      }
    };
    d.server.on('request', seen);
    const agent = spawnAgent(d.url, t.token, 'tls-agent', ['--ca-file', caFile]);
    try {
      await agent.waitFor(/registered as (agent-\S+) in pool/);
      await expect.poll(() => requests, { timeout: 20_000, interval: 200 }).toBeGreaterThanOrEqual(3);
      expect(sockets.size, 'register and two reports 5 s apart on one TLS connection').toBe(1);
    } finally {
      agent.proc.kill('SIGTERM');
      d.server.off('request', seen);
    }
    expect(await agent.exited).toBe(0);
    const untrusting = spawnAgent(d.url, t.token, 'no-ca');
    try {
      await untrusting.waitFor(/daemon unreachable \(fetch failed\)/);
    } finally {
      untrusting.proc.kill('SIGTERM');
    }
  });

  it('keeps its CA and certificate across a restart; a CA folder others may read stops the start', async () => {
    const fingerprint = localCaOf(d).fingerprint;
    const served = (await peer(d.url, ca())).fingerprint256;
    const dataDir = d.dataDir;
    const again = await startTestDaemon({ dataDir, config: { tls: 'auto' } });
    try {
      expect(localCaOf(again).fingerprint).toBe(fingerprint);
      expect((await peer(again.url, ca())).fingerprint256).toBe(served);
    } finally {
      await again.stop();
    }
    chmodSync(join(dataDir, 'tls'), 0o755);
    await expect(startTestDaemon({ dataDir, config: { tls: 'auto' } })).rejects.toThrow(
      /tls is open to other users \(mode 755\).*chmod 0700/,
    );
    chmodSync(join(dataDir, 'tls'), 0o700);
  });
});

describe('--tls-cert/--tls-key: your own certificate', () => {
  let certs: Awaited<ReturnType<typeof testCa>>;
  beforeAll(async () => {
    certs = await testCa();
  });

  it('serves it with HSTS, reloads it when the files change without dropping connections, and keeps the old one when the new is bad', async () => {
    const first = await certs.issue(['localhost', '127.0.0.1'], 'first');
    const live = { cert: join(certs.dir, 'live.pem'), key: join(certs.dir, 'live-key.pem') };
    copyFileSync(first.cert, live.cert);
    copyFileSync(first.key, live.key);
    const d = await startTestDaemon({ config: { tlsCert: live.cert, tlsKey: live.key }, caFile: certs.caFile });
    try {
      const ca = readFileSync(certs.caFile, 'utf8');
      const before = (await peer(d.url, ca)).fingerprint256;
      // A connection open before the swap: it keeps its certificate and goes on answering.
      const kept = await keepAlive(d.url, ca);
      expect(await kept.ask('/healthz')).toMatch(/^HTTP\/1\.1 200 /);
      const h = await d.http.get('/healthz');
      expect(h.headers.get('strict-transport-security')).toBe('max-age=31536000');
      expect((await d.http.get('/ca.pem')).status).toBe(404);
      // A bad pair: logged, /healthz degraded, the old certificate still served.
      writeFileSync(live.key, 'not a key');
      await tlsOf(d).reload();
      // /healthz measures at most once a second; the detail is an administrator's to see.
      await expect
        .poll(async () => (await d.http.withToken(d.adminToken).get('/healthz')).json, { timeout: 5000 })
        .toMatchObject({
          status: 'degraded',
          checks: { tls: { status: 'failing', detail: expect.stringMatching(/holds no PEM private key/) } },
        });
      expect((await peer(d.url, ca)).fingerprint256).toBe(before);
      // A good new pair, seen by the file watch (every 5 s); new connections get it.
      const second = await certs.issue(['localhost', '127.0.0.1'], 'second');
      copyFileSync(second.cert, live.cert);
      copyFileSync(second.key, live.key);
      await expect
        .poll(async () => (await peer(d.url, ca)).fingerprint256, { timeout: 20_000, interval: 500 })
        .not.toBe(before);
      expect(await kept.ask('/healthz')).toMatch(/^HTTP\/1\.1 200 /);
      kept.close();
      await expect
        .poll(async () => (await d.http.get('/healthz')).json.checks.tls, { timeout: 5000 })
        .toEqual({ status: 'ok' });
    } finally {
      await d.stop();
    }
  });

  it('refuses to start on a mismatched key, an expired certificate or an unreadable file, never falling back to plain HTTP', async () => {
    const a = await certs.issue(['localhost'], 'a');
    const b = await certs.issue(['localhost'], 'b');
    await expect(startTestDaemon({ config: { tlsCert: a.cert, tlsKey: b.key } })).rejects.toThrow(
      /is not the key of the certificate/,
    );
    const old = await expiredCertificate(certs.dir);
    await expect(startTestDaemon({ config: { tlsCert: old.cert, tlsKey: old.key } })).rejects.toThrow(/expired on/);
    await expect(startTestDaemon({ config: { tlsCert: join(certs.dir, 'nope.pem'), tlsKey: a.key } })).rejects.toThrow(
      /Cannot read the TLS certificate .*ENOENT/,
    );
  });
});

describe('boxyard trust', () => {
  it('writes a CA bundle once the fingerprint matches, and refuses a CA that does not match', async () => {
    const d = await startTestDaemon({ config: { tls: 'auto' } });
    try {
      const out = join(mkdtempSync(join(tmpdir(), 'boxyard-trust-')), 'bundle.pem');
      const fp = localCaOf(d).fingerprint;
      const ok = await runCli(['trust', d.url, '--fingerprint', fp.replace(/:/g, '').toLowerCase(), '--out', out]);
      expect(ok.code, ok.stderr).toBe(0);
      expect(ok.stdout).toContain(`export SSL_CERT_FILE=${out}`);
      expect(readFileSync(out, 'utf8')).toContain(readFileSync(join(d.dataDir, 'tls', 'ca.pem'), 'utf8').trim());
      expect((await run('curl', ['-sS', '--fail', '--cacert', out, `${d.url}/healthz`])).stdout).toContain('"status"');
      const wrong = await runCli(['trust', d.url, '--fingerprint', 'AB'.repeat(32), '--out', `${out}.2`]);
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toMatch(/has the fingerprint .*not the one given: do not trust it/);
    } finally {
      await d.stop();
    }
  });
});

describe("a mirror of another lab's Boxyard on --tls auto", () => {
  it('trusts the CA given for that upstream alone; without it the job fails on the certificate', async () => {
    const a = await startTestDaemon({ config: { tls: 'auto' } });
    const b = await startTestDaemon();
    try {
      const ha = a.http.withToken(a.adminToken);
      const file = randomBytes(70_000);
      expect((await ha.post('/api/boxyard/organizations', { organization: { name: 'lab' } })).status).toBe(201);
      expect(
        (await ha.post('/api/v1/boxes', { box: { username: 'lab', name: 'web', is_private: false } })).status,
      ).toBe(200);
      expect((await ha.post('/api/v1/box/lab/web/versions', { version: { version: '1.0.0' } })).status).toBe(200);
      expect(
        (await ha.post('/api/v1/box/lab/web/version/1.0.0/providers', { provider: { name: 'virtualbox', url: null } }))
          .status,
      ).toBe(200);
      const up = await ha.get('/api/v1/box/lab/web/version/1.0.0/provider/virtualbox/upload');
      expect(
        (
          await a.http.request('PUT', up.json.upload_path, {
            body: file,
            raw: true,
            headers: { 'content-type': 'application/octet-stream' },
          })
        ).status,
      ).toBe(200);
      expect((await ha.put('/api/v1/box/lab/web/version/1.0.0/release')).status).toBe(200);

      const hb = b.http.withToken(b.adminToken);
      const without = await mirrorOnce(hb, { upstream: { url: a.url }, source: 'lab/web' });
      expect(without.job).toMatchObject({
        state: 'failed',
        error_code: 'upstream_failed',
        message: expect.stringMatching(/CERT|certificate/),
      });
      expect(
        (await hb.post('/api/boxyard/upstreams', { upstream: { url: `${a.url}/x`, ca: 'not a certificate' } })).status,
      ).toBe(403);
      const ca = readFileSync(join(a.dataDir, 'tls', 'ca.pem'), 'utf8');
      const trusted = await mirrorOnce(hb, { upstream: { url: a.url, ca }, source: 'lab/web' });
      expect(trusted.job).toMatchObject({ state: 'done', published: [{ box: 'lab/web', versions: ['1.0.0'] }] });
      expect((await b.http.get('/lab/web')).json.versions[0].providers[0].checksum).toBe(
        createHash('sha256').update(file).digest('hex'),
      );
      const upstreams = (await hb.get('/api/boxyard/upstreams')).json.upstreams;
      expect(upstreams).toEqual([expect.objectContaining({ url: a.url, ca_fingerprint: localCaOf(a).fingerprint })]);
    } finally {
      await b.stop();
      await a.stop();
    }
  });
});
