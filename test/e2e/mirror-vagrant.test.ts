import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import { mirrorOnce, publishHosted, serveFile, serveJson, staticServer, type StaticServer } from '../helpers/mirror';
import { makeBoxFile, run, vagrantInstalled } from '../helpers/vagrant';
import { allowHcpStorage, startHcpUpstream, type HcpUpstream } from '../helpers/hcp-upstream';

/*
 * The unmodified Debian `vagrant` 2.3.4 installs boxes from a Boxyard that copied them from
 * elsewhere, with the upstreams stopped: a mirror of another daemon, a mirror of a plain
 * catalog JSON on a static server (sha1 checksum), and the pull-through cache (twice, the second
 * time with its upstream gone), and an organization copied from a stand-in for HCP Vagrant (box
 * API, 302s to presigned storage, a private box, sha512). Mandatory when CI=true.
 */
const installed = vagrantInstalled();
const mandatory = process.env.CI === 'true';

// Skipped only off CI without vagrant; under CI=true it runs, and a missing vagrant fails.
describe.runIf(installed || mandatory)('real vagrant CLI against mirrored and cached boxes', () => {
  let upstream: TestDaemon;
  let mirror: TestDaemon;
  let cache: TestDaemon;
  let s: StaticServer;
  let hcp: HcpUpstream;
  let work: string;
  let upstreamStopped = false;
  let hcpStopped = false;
  const vagrant = (server: string, home: string, args: string[]) =>
    run('vagrant', args, {
      VAGRANT_HOME: join(work, home),
      VAGRANT_CHECKPOINT_DISABLE: '1',
      VAGRANT_SERVER_URL: server,
      VAGRANT_NO_COLOR: '1',
    });
  const added = (home: string, box: string, version: string) =>
    existsSync(join(work, home, 'boxes', box.replace('/', '-VAGRANTSLASH-'), version, 'virtualbox', 'metadata.json'));

  beforeAll(async () => {
    expect(installed, 'CI=true requires the vagrant CLI (apt-get install vagrant)').toBe(true);
    work = mkdtempSync(join(tmpdir(), 'boxyard-mirror-vagrant-'));
    upstream = await startTestDaemon();
    const http = upstream.http.withToken(upstream.adminToken);
    await http.post('/api/boxyard/organizations', { organization: { name: 'acme' } });
    await publishHosted(http, 'acme', 'web', '1.0.0', await makeBoxFile(join(work, 'web.box')));
    s = await staticServer();
    const tool = await makeBoxFile(join(work, 'tool.box'));
    s.route(
      '/catalogs/tool.json',
      serveJson({
        name: 'lab/tool',
        versions: [
          {
            version: '0.3.0',
            providers: [
              {
                name: 'virtualbox',
                url: 'files/tool.box',
                checksum: createHash('sha1').update(tool).digest('hex'),
                checksum_type: 'sha1',
              },
            ],
          },
        ],
      }),
    );
    s.route('/catalogs/files/tool.box', serveFile(tool));
    const hcpBox = await makeBoxFile(join(work, 'hcp.box'));
    const version = (description: string) => ({
      version: '2.0.0',
      status: 'active' as const,
      description,
      providers: [
        {
          name: 'virtualbox',
          architecture: 'amd64',
          default_architecture: true,
          file: hcpBox,
          checksum_type: 'sha512' as const,
        },
      ],
    });
    hcp = await startHcpUpstream({
      token: 'hcp-e2e',
      boxes: [
        {
          org: 'hashi',
          name: 'open',
          private: false,
          short_description: 'open',
          description: '# Open',
          versions: [version('Open release.')],
        },
        {
          org: 'hashi',
          name: 'closed',
          private: true,
          short_description: 'closed',
          description: '# Closed',
          versions: [version('Closed release.')],
        },
      ],
    });
    mirror = await startTestDaemon();
    await allowHcpStorage(mirror.http.withToken(mirror.adminToken));
    cache = await startTestDaemon({ config: { upstream: upstream.url } });
  });
  afterAll(async () => {
    if (!upstreamStopped) await upstream?.stop();
    await mirror?.stop();
    await cache?.stop();
    await s?.close();
    if (!hcpStopped) await hcp?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('mirrors a daemon and a static catalog, then vagrant installs both with the upstreams stopped', async () => {
    const http = mirror.http.withToken(mirror.adminToken);
    expect((await mirrorOnce(http, { upstream: { url: upstream.url }, source: 'acme/web' })).job.state).toBe('done');
    expect(
      (await mirrorOnce(http, { upstream: { url: `${s.url}/catalogs/tool.json` }, source: 'lab/tool' })).job.state,
    ).toBe('done');
    const first = await vagrant(cache.url, 'home-cache-1', ['box', 'add', 'acme/web', '--provider', 'virtualbox']);
    expect(first.code, first.output).toBe(0);
    expect(first.output).toContain("Successfully added box 'acme/web' (v1.0.0) for 'virtualbox'!");
    expect(added('home-cache-1', 'acme/web', '1.0.0')).toBe(true);
    // The cache stores what it streamed; wait for it to be committed before the upstream goes.
    const cacheHttp = cache.http.withToken(cache.adminToken);
    for (
      const until = Date.now() + 20_000;
      (await cacheHttp.get('/api/boxyard/cache')).json.boxes[0]?.providers_cached !== 1;
    ) {
      if (Date.now() > until) throw new Error('the cache did not store the file');
      await new Promise((r) => setTimeout(r, 50));
    }

    await upstream.stop();
    upstreamStopped = true;
    await s.close();
    for (const box of ['acme/web', 'lab/tool']) {
      const r = await vagrant(mirror.url, 'home-mirror', ['box', 'add', box, '--provider', 'virtualbox']);
      expect(r.code, r.output).toBe(0);
      expect(r.output).toContain('Calculating and comparing box checksum');
      expect(r.output).toContain(`Successfully added box '${box}'`);
    }
    expect(added('home-mirror', 'lab/tool', '0.3.0')).toBe(true);
    expect(readFileSync(join(work, 'home-mirror', 'boxes', 'lab-VAGRANTSLASH-tool', 'metadata_url'), 'utf8')).toContain(
      `${mirror.url}/lab/tool`,
    );
  });

  it('the pull-through cache serves what it fetched once its upstream is gone', async () => {
    const r = await vagrant(cache.url, 'home-cache-2', ['box', 'add', 'acme/web', '--provider', 'virtualbox']);
    expect(r.code, r.output).toBe(0);
    expect(r.output).toContain('Calculating and comparing box checksum');
    expect(r.output).toContain("Successfully added box 'acme/web' (v1.0.0) for 'virtualbox'!");
    expect(added('home-cache-2', 'acme/web', '1.0.0')).toBe(true);
  });

  it('copies an HCP Vagrant organization, then vagrant installs its public box, and its private one with a token, with HCP gone', async () => {
    const http = mirror.http.withToken(mirror.adminToken);
    const { job } = await mirrorOnce(http, { upstream: { url: hcp.url, token: 'hcp-e2e' }, source: 'hashi' });
    expect(job.state, job.message ?? '').toBe('done');
    await hcp.stop();
    hcpStopped = true;
    const open = await vagrant(mirror.url, 'home-hcp', ['box', 'add', 'hashi/open', '--provider', 'virtualbox']);
    expect(open.code, open.output).toBe(0);
    expect(open.output).toContain("Successfully added box 'hashi/open' (v2.0.0) for 'virtualbox'!");
    // Private stays private: without a token vagrant cannot see it; with one of the mirror's, it installs.
    const hidden = await vagrant(mirror.url, 'home-hcp', ['box', 'add', 'hashi/closed', '--provider', 'virtualbox']);
    expect(hidden.code).not.toBe(0);
    const closed = await run('vagrant', ['box', 'add', 'hashi/closed', '--provider', 'virtualbox'], {
      VAGRANT_HOME: join(work, 'home-hcp'),
      VAGRANT_CHECKPOINT_DISABLE: '1',
      VAGRANT_SERVER_URL: mirror.url,
      VAGRANT_NO_COLOR: '1',
      VAGRANT_CLOUD_TOKEN: mirror.adminToken,
    });
    expect(closed.code, closed.output).toBe(0);
    expect(closed.output).toContain('Calculating and comparing box checksum');
    expect(added('home-hcp', 'hashi/closed', '2.0.0')).toBe(true);
  });
});
