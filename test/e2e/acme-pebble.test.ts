import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { connect as tlsConnect } from 'node:tls';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Koa from 'koa';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AcmeIssuer } from '../../daemon/src/tls/acme';
import { acmeChallenges } from '../../daemon/src/tls/routes';
import { ManualClock } from '../../daemon/src/lib/clock';
import type { ServedCertificate } from '../../daemon/src/tls/issuer';
import { ManagedCertificate } from '../../daemon/src/tls/maintenance';
import { freePort, spawnDaemon, type SpawnedDaemon } from '../helpers/spawn-daemon';
import { pebbleInstalled, startPebble, type Pebble } from '../helpers/pebble';

/*
 * `--tls acme` against Debian's pebble, the ACME test server: the bundled daemon as users
 * start it obtains its certificate through HTTP-01 on --http-port, serves it, keeps it across a
 * restart, and a directory that is down stops the first start (never plain HTTP). Renewal runs on
 * the maintenance loop and ACME issuer themselves with a clock moved by hand. Mandatory when CI=true.
 */
const installed = pebbleInstalled();
const mandatory = process.env.CI === 'true';
const run = promisify(execFile);
const NAME = 'boxyard.test';
const DAY = 86_400_000;

describe.runIf(installed || mandatory)('--tls acme against pebble', () => {
  let pebble: Pebble;
  let work: string;
  let rootFile: string;
  let httpPort: number;

  beforeAll(async () => {
    expect(installed, 'CI=true requires pebble (apt-get install pebble)').toBe(true);
    httpPort = await freePort();
    pebble = await startPebble({ httpPort });
    work = mkdtempSync(join(tmpdir(), 'boxyard-acme-'));
    rootFile = join(work, 'pebble-root.pem');
    writeFileSync(rootFile, await pebble.root());
  });
  afterAll(async () => {
    await pebble?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  const serve = async (dataDir: string, port: number, directory = pebble.directory) =>
    spawnDaemon({
      dataDir,
      port,
      args: [
        '--tls',
        'acme',
        '--public-url',
        `https://${NAME}:${port}`,
        '--acme-directory',
        directory,
        '--acme-email',
        'ops@boxyard.test',
        '--acme-ca-file',
        pebble.caFile,
        '--http-port',
        String(httpPort),
      ],
    });
  const curl = (port: number, path: string, extra: string[] = ['--cacert', rootFile]) =>
    run('curl', [
      '-sS',
      '--fail',
      '-D',
      '-',
      '--resolve',
      `${NAME}:${port}:127.0.0.1`,
      ...extra,
      `https://${NAME}:${port}${path}`,
    ]);
  /** The certificate the daemon serves for NAME (not checked: only looked at). */
  const served = (port: number) =>
    new Promise<X509Certificate>((resolve, reject) => {
      const s = tlsConnect({ host: '127.0.0.1', port, servername: NAME, rejectUnauthorized: false }, () => {
        const cert = s.getPeerX509Certificate();
        if (cert) resolve(cert);
        else reject(new Error(`${NAME} on port ${port} served no certificate`));
        s.end();
      });
      s.on('error', reject);
    });

  it('obtains a certificate at start through HTTP-01 on --http-port, serves it with HSTS, and keeps it across a restart', async () => {
    const dataDir = join(work, 'data');
    const port = await freePort();
    let d: SpawnedDaemon = await serve(dataDir, port);
    try {
      const health = await curl(port, '/healthz');
      expect(health.stdout).toMatch(/^HTTP\/1\.1 200 /);
      expect(health.stdout).toMatch(/strict-transport-security: max-age=31536000/i);
      expect(JSON.parse(health.stdout.slice(health.stdout.indexOf('{')))).toMatchObject({
        status: 'ok',
        checks: { tls: { status: 'ok' } },
      });
      const cert = await served(port);
      expect(cert.subjectAltName).toBe(`DNS:${NAME}`);
      expect(cert.issuer).toMatch(/Pebble Intermediate CA/);
      // Only pebble's root makes it trusted: curl with the system's CAs alone refuses it.
      await expect(curl(port, '/healthz', [])).rejects.toMatchObject({ code: 60 });
      // --http-port sends a browser to the public URL over HTTPS.
      const redirect = await run('curl', [
        '-sS',
        '-o',
        '/dev/null',
        '-w',
        '%{http_code} %{redirect_url}',
        `http://127.0.0.1:${httpPort}/ui/`,
        '-H',
        `Host: ${NAME}:${httpPort}`,
      ]);
      expect(redirect.stdout).toBe(`301 https://${NAME}:${port}/ui/`);
      for (const key of ['account-key.pem', 'key.pem'])
        expect(statSync(join(dataDir, 'tls', 'acme', key)).mode & 0o777).toBe(0o600);
      expect(statSync(join(dataDir, 'tls', 'acme')).mode & 0o777).toBe(0o700);

      await d.kill();
      d = await serve(dataDir, port);
      expect((await served(port)).fingerprint256, 'the stored certificate, not a new order').toBe(cert.fingerprint256);
      expect((await curl(port, '/healthz')).stdout).toMatch(/^HTTP\/1\.1 200 /);
    } finally {
      await d.kill();
    }
  });

  it('a first start whose ACME directory is down stops with a clear error and serves nothing', async () => {
    const dataDir = join(work, 'down');
    const port = await freePort();
    const down = `https://127.0.0.1:${await freePort()}/dir`;
    await expect(serve(dataDir, port, down)).rejects.toThrow(
      new RegExp(
        `exited with 1:[\\s\\S]*Could not get a certificate for ${NAME} from the ACME directory ${down.replace(/[./]/g, '\\$&')}: the directory cannot be reached \\(ECONNREFUSED\\)`,
      ),
    );
    await expect(run('curl', ['-sS', `http://127.0.0.1:${port}/healthz`])).rejects.toMatchObject({ code: 7 });
    // The plain port, opened for the challenge before the order, is closed again.
    await expect(run('curl', ['-sS', `http://127.0.0.1:${httpPort}/`])).rejects.toMatchObject({ code: 7 });
  });

  describe('renewal', () => {
    let own: Pebble;
    let challenges: Server;
    const clock = new ManualClock(new Date());
    let source: ManagedCertificate;
    const changes: ServedCertificate[] = [];

    beforeAll(async () => {
      const port = await freePort();
      own = await startPebble({ httpPort: port });
      const log = pino({ level: 'silent' });
      source = new ManagedCertificate(
        new AcmeIssuer({ dataDir: join(work, 'renew'), name: NAME, directory: own.directory, caFile: own.caFile, log }),
        { clock, log },
      );
      // The daemon's own challenge middleware, on the port pebble validates.
      const app = new Koa().use(acmeChallenges(source));
      challenges = createServer(app.callback());
      await new Promise<void>((r) => challenges.listen(port, '127.0.0.1', r));
    });
    afterAll(async () => {
      source?.stop();
      challenges?.close();
      await own?.stop();
    });

    it('renews once a third of the life is left, and when the CA is down keeps the current certificate, says so and retries with backoff', async () => {
      const first = await source.start((c) => changes.push(c));
      expect(source.status()).toMatchObject({ ok: true, mode: 'acme' });
      await source.reload();
      expect(changes, 'not due yet: nothing ordered').toEqual([]);

      const life = first.notAfter.getTime() - new Date(new X509Certificate(first.cert).validFrom).getTime();
      clock.advance(life - life / 3 + DAY);
      await source.reload();
      expect(source.status().message).not.toMatch(/failed/);
      expect(changes).toHaveLength(1);
      expect(changes[0].cert).not.toBe(first.cert);
      expect(source.status()).toMatchObject({ ok: true, not_after: changes[0].notAfter.toISOString() });

      await own.kill();
      clock.advance(life - life / 3 + DAY);
      await source.reload();
      expect(changes, 'the current one is kept').toHaveLength(1);
      expect(source.status()).toMatchObject({
        ok: false,
        message: expect.stringMatching(
          /^renewing the certificate through https:\/\/127\.0\.0\.1:\d+\/dir failed: the directory cannot be reached \(ECONNREFUSED\); retrying in 60 s/,
        ),
      });
      await source.reload();
      expect(source.status().message).toMatch(/retrying in 120 s/);
    });
  });
});
