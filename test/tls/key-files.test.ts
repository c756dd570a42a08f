import { chmodSync, copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { connect as tlsConnect } from 'node:tls';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../daemon/src/lib/clock';
import { startTestDaemon, tlsOf, type TestDaemon } from '../helpers/daemon';
import { testCa } from '../helpers/certificates';

const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The SHA-256 fingerprint of the certificate a new TLS connection to `url` is served. */
function served(url: string, ca: string): Promise<string> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const s = tlsConnect({ host: u.hostname, port: Number(u.port), ca, servername: 'localhost' }, () => {
      resolve(s.getPeerCertificate().fingerprint256);
      s.end();
    });
    s.on('error', reject);
  });
}

describe('--tls-key: a key file other users may open', () => {
  let certs: Awaited<ReturnType<typeof testCa>>;
  beforeAll(async () => {
    certs = await testCa();
  });

  it('stops the start with the chmod that fixes it, for read or write by others; its group may read it', async () => {
    const pair = await certs.issue(['localhost', '127.0.0.1'], 'modes');
    for (const mode of [0o644, 0o604, 0o602]) {
      chmodSync(pair.key, mode);
      await expect(
        startTestDaemon({ config: { tlsCert: pair.cert, tlsKey: pair.key } }),
        mode.toString(8),
      ).rejects.toThrow(
        new RegExp(
          `^${escaped(pair.key)} is open to users outside its owner and group \\(mode ${mode.toString(8)}\\); it holds a TLS private key.*chmod 640 ${escaped(pair.key)}, or 600`,
        ),
      );
    }
    chmodSync(pair.key, 0o640);
    const d = await startTestDaemon({ config: { tlsCert: pair.cert, tlsKey: pair.key }, caFile: certs.caFile });
    try {
      expect((await d.http.get('/healthz')).status).toBe(200);
    } finally {
      await d.stop();
    }
  });
});

describe('--tls-key made readable to others while the daemon runs', () => {
  const clock = new ManualClock(new Date());
  let certs: Awaited<ReturnType<typeof testCa>>;
  let d: TestDaemon;
  let live: { cert: string; key: string };
  let ca: string;
  /** /healthz measured afresh (a report is reused for a second of the daemon's clock), as `who` sees it. */
  const health = (who: 'admin' | 'anyone') => {
    clock.advance(1000);
    return (who === 'admin' ? d.http.withToken(d.adminToken) : d.http).get('/healthz');
  };

  beforeAll(async () => {
    certs = await testCa();
    ca = readFileSync(certs.caFile, 'utf8');
    const first = await certs.issue(['localhost', '127.0.0.1'], 'first');
    live = { cert: join(certs.dir, 'live.pem'), key: join(certs.dir, 'live-key.pem') };
    copyFileSync(first.cert, live.cert);
    copyFileSync(first.key, live.key);
    chmodSync(live.key, 0o640);
    d = await startTestDaemon({ clock, config: { tlsCert: live.cert, tlsKey: live.key }, caFile: certs.caFile });
  });
  afterAll(async () => {
    await d?.stop();
  });

  it('refuses the reload, keeps serving the pair read before, and tells the path and the chmod to an administrator alone', async () => {
    const before = await served(d.url, ca);
    // The key opened to everyone first, then a new pair written into the same files (their modes kept):
    // every state the file watch might catch on the way is one to refuse.
    chmodSync(live.key, 0o644);
    const second = await certs.issue(['localhost', '127.0.0.1'], 'second');
    writeFileSync(live.cert, readFileSync(second.cert));
    writeFileSync(live.key, readFileSync(second.key));
    await tlsOf(d).reload();
    expect(await served(d.url, ca)).toBe(before);

    const admin = await health('admin');
    expect(admin.json).toMatchObject({ status: 'degraded', checks: { tls: { status: 'failing' } } });
    expect(admin.json.checks.tls.detail).toMatch(
      new RegExp(
        `could not be reloaded: ${escaped(live.key)} is open to users outside its owner and group \\(mode 644\\).*chmod 640 ${escaped(live.key)}.*still serving the current one`,
      ),
    );
    // The overview, an administrator's page, says the same.
    const overview = await d.http.withToken(d.adminToken).get('/api/boxyard/overview');
    expect(overview.json.overview.health.checks.tls.detail).toContain(live.key);

    // Anyone else: that something is wrong, and where to look, but no file of the daemon's machine.
    const anyone = await health('anyone');
    expect(anyone.status).toBe(200);
    expect(anyone.json).toEqual({
      status: 'degraded',
      name: 'boxyard',
      version: expect.any(String),
      checks: {
        database: { status: 'ok' },
        blobs: { status: 'ok' },
        disk: { status: 'ok' },
        tls: { status: 'failing' },
      },
      details: expect.stringMatching(/^What is wrong is shown to administrators/),
    });
    for (const path of [certs.dir, d.dataDir, 'chmod']) expect(anyone.text).not.toContain(path);
    const ready = await d.http.get('/readyz');
    expect(ready.json.checks.tls).toEqual({ status: 'failing' });
    expect(ready.text).not.toContain(certs.dir);
    // A signed-in user who is not an administrator sees the overview's checks without details too.
    const user = (await d.user('plain')).http;
    const theirs = await user.get('/api/boxyard/overview');
    expect(theirs.status).toBe(200);
    expect(theirs.json.overview.health.checks.tls).toEqual({ status: 'failing' });
    for (const path of [certs.dir, d.dataDir, 'chmod']) expect(theirs.text).not.toContain(path);

    // Closed to others again: the new pair is read and served, and the check is well.
    chmodSync(live.key, 0o640);
    await tlsOf(d).reload();
    expect(await served(d.url, ca)).not.toBe(before);
    expect((await health('admin')).json.checks.tls).toEqual({ status: 'ok' });
    const well = await health('anyone');
    expect(well.json).toMatchObject({ status: 'ok', checks: { tls: { status: 'ok' } } });
    expect(well.json.details).toBeUndefined();
  });
});
