import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localCaOf, startTestDaemon, type TestDaemon } from '../helpers/daemon';
import { runCli } from '../helpers/cli';
import { makeBoxFile, run, vagrantInstalled } from '../helpers/vagrant';

/*
 * HTTPS: the unmodified Debian `vagrant` 2.3.4 against `serve --tls auto`, trusting only what
 * `boxyard trust` wrote (the system's CAs and the daemon's own): publish (direct upload to an
 * https upload URL), box add and box update; without the bundle it refuses the daemon.
 * Mandatory when CI=true.
 */
const installed = vagrantInstalled();
const mandatory = process.env.CI === 'true';

describe.runIf(installed || mandatory)('real vagrant CLI over HTTPS (--tls auto)', () => {
  let d: TestDaemon;
  let work: string;
  let bundle: string;
  let token: string;
  const env = (extra: Record<string, string> = {}) => ({
    VAGRANT_HOME: join(work, 'home'),
    VAGRANT_CHECKPOINT_DISABLE: '1',
    VAGRANT_SERVER_URL: d.url.replace('127.0.0.1', 'localhost'),
    VAGRANT_NO_COLOR: '1',
    VAGRANT_CLOUD_TOKEN: token,
    SSL_CERT_FILE: bundle,
    CURL_CA_BUNDLE: bundle,
    ...extra,
  });

  beforeAll(async () => {
    expect(installed, 'CI=true requires the vagrant CLI (apt-get install vagrant)').toBe(true);
    d = await startTestDaemon({ config: { tls: 'auto' } });
    token = (await d.user('alice', { orgs: ['acme'] })).token;
    work = mkdtempSync(join(tmpdir(), 'boxyard-vagrant-https-'));
    bundle = join(work, 'bundle.pem');
    const trusted = await runCli(['trust', d.url, '--fingerprint', localCaOf(d).fingerprint, '--out', bundle]);
    expect(trusted.code, trusted.stderr).toBe(0);
    for (const v of ['1.0.0', '1.1.0']) await makeBoxFile(join(work, `web-${v}.box`));
  });
  afterAll(async () => {
    await d?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('publishes, adds and updates a box over HTTPS with the CA bundle', async () => {
    const pub = await run(
      'vagrant',
      [
        'cloud',
        'publish',
        'acme/web',
        '1.0.0',
        'virtualbox',
        join(work, 'web-1.0.0.box'),
        '--release',
        '--force',
        '--no-private',
      ],
      env(),
    );
    expect(pub.code, pub.output).toBe(0);
    expect(pub.output).toContain('Complete! Published acme/web');
    const add = await run('vagrant', ['box', 'add', 'acme/web', '--provider', 'virtualbox'], env());
    expect(add.code, add.output).toBe(0);
    expect(add.output).toContain("Successfully added box 'acme/web' (v1.0.0) for 'virtualbox'!");
    const next = await run(
      'vagrant',
      [
        'cloud',
        'publish',
        'acme/web',
        '1.1.0',
        'virtualbox',
        join(work, 'web-1.1.0.box'),
        '--release',
        '--force',
        '--no-direct-upload',
      ],
      env(),
    );
    expect(next.code, next.output).toBe(0);
    const update = await run('vagrant', ['box', 'update', '--box', 'acme/web', '--provider', 'virtualbox'], env());
    expect(update.code, update.output).toBe(0);
    expect(
      existsSync(join(work, 'home', 'boxes', 'acme-VAGRANTSLASH-web', '1.1.0', 'virtualbox', 'metadata.json')),
    ).toBe(true);
  });

  it("without the bundle vagrant refuses the daemon's certificate", async () => {
    const r = await run(
      'vagrant',
      ['box', 'add', 'acme/web', '--provider', 'virtualbox', '--force'],
      env({
        SSL_CERT_FILE: '/etc/ssl/certs/ca-certificates.crt',
        CURL_CA_BUNDLE: '/etc/ssl/certs/ca-certificates.crt',
      }),
    );
    expect(r.code).not.toBe(0);
    expect(r.output).toMatch(/certificate|SSL/i);
  });
});
