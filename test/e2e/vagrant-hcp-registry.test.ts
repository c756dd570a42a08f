import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localCaOf, startTestDaemon, type TestDaemon } from '../helpers/daemon';
import { runCli } from '../helpers/cli';
import { makeBoxFile, run, vagrantInstalled } from '../helpers/vagrant';
import { replayPackerRegistry } from '../helpers/hcp-registry';

/*
 * A box published as Packer's vagrant-registry publishes it (HCP's registry API, replayed with its exact bodies) over
 * `--tls auto`, then installed by the unmodified Debian `vagrant` trusting only the bundle `boxyard trust` wrote.
 * Mandatory when CI=true.
 */
const installed = vagrantInstalled();
const mandatory = process.env.CI === 'true';

describe.runIf(installed || mandatory)("vagrant installs what HCP's registry API published", () => {
  let d: TestDaemon;
  let work: string;
  let bundle: string;

  beforeAll(async () => {
    expect(installed, 'CI=true requires the vagrant CLI (apt-get install vagrant)').toBe(true);
    d = await startTestDaemon({ config: { tls: 'auto' } });
    const alice = await d.user('alice', { orgs: ['acme'] });
    work = mkdtempSync(join(tmpdir(), 'boxyard-vagrant-hcp-'));
    bundle = join(work, 'bundle.pem');
    const trusted = await runCli(['trust', d.url, '--fingerprint', localCaOf(d).fingerprint, '--out', bundle]);
    expect(trusted.code, trusted.stderr).toBe(0);
    const file = await makeBoxFile(join(work, 'web.box'), 'virtualbox', 256 * 1024, 'amd64');
    await replayPackerRegistry(alice.http, {
      registry: 'acme',
      box: 'web',
      version: '1.0.0',
      provider: 'virtualbox',
      architecture: 'amd64',
      defaultArchitecture: 'amd64',
      boxDescription: 'Built by Packer',
      file,
    });
  });
  afterAll(async () => {
    await d?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('vagrant box add installs it over HTTPS with the CA bundle', async () => {
    const add = await run('vagrant', ['box', 'add', 'acme/web', '--provider', 'virtualbox'], {
      VAGRANT_HOME: join(work, 'home'),
      VAGRANT_CHECKPOINT_DISABLE: '1',
      VAGRANT_SERVER_URL: d.url.replace('127.0.0.1', 'localhost'),
      VAGRANT_NO_COLOR: '1',
      SSL_CERT_FILE: bundle,
      CURL_CA_BUNDLE: bundle,
    });
    expect(add.code, add.output).toBe(0);
    expect(add.output).toContain("Successfully added box 'acme/web' (v1.0.0) for 'virtualbox'!");
  });
});
