import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localCaOf, startTestDaemon, type TestDaemon } from '../helpers/daemon';
import { runCli } from '../helpers/cli';
import { makeBoxFile, run } from '../helpers/vagrant';

/*
 * Debian's unmodified Packer 1.6.6 publishing a box with its `vagrant-cloud` post-processor
 * (null builder → artifice → vagrant-cloud, as ../shared/CLIENTS.md describes), over plain HTTP
 * and over HTTPS (`--tls auto`) trusting only the bundle `boxyard trust` wrote through
 * SSL_CERT_FILE; without it Packer refuses the daemon. Mandatory when CI=true.
 */
const installed =
  spawnSync('packer', ['version'], { stdio: 'ignore', env: { ...process.env, CHECKPOINT_DISABLE: '1' } }).status === 0;
const mandatory = process.env.CI === 'true';

describe.runIf(installed || mandatory)('real Packer 1.6.6 vagrant-cloud post-processor', () => {
  let work: string;
  beforeAll(() => {
    expect(installed, 'CI=true requires Packer (apt-get install packer)').toBe(true);
    work = mkdtempSync(join(tmpdir(), 'boxyard-packer-'));
  });
  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  /** `packer build` of a template that publishes `box` as ORG/BOX `version`. */
  async function packerBuild(
    d: TestDaemon,
    token: string,
    o: { tag: string; version: string; box: string; env?: Record<string, string>; noDirectUpload?: boolean },
  ) {
    const template = join(work, `${o.tag.replace('/', '-')}-${o.version}.json`);
    writeFileSync(
      template,
      JSON.stringify({
        builders: [{ type: 'null', communicator: 'none' }],
        'post-processors': [
          [
            { type: 'artifice', files: [o.box] },
            {
              type: 'vagrant-cloud',
              box_tag: o.tag,
              version: o.version,
              access_token: token,
              vagrant_cloud_url: `${d.url}/api/v1`,
              version_description: `built by packer ${o.version}`,
              ...(o.noDirectUpload ? { no_direct_upload: true } : {}),
            },
          ],
        ],
      }),
    );
    return run(
      'packer',
      ['build', '-color=false', template],
      {
        CHECKPOINT_DISABLE: '1',
        PACKER_CACHE_DIR: join(work, 'cache'),
        HOME: work,
        TMPDIR: work,
        ...o.env,
      },
      undefined,
      120_000,
    );
  }

  /** What the daemon now says of ORG/BOX VERSION (API v1, as Packer reads it), and its file's bytes match `file`. */
  async function expectPublished(d: TestDaemon, token: string, tag: string, version: string, file: Buffer) {
    const box = await d.http.withToken(token).get(`/api/v1/box/${tag}`);
    expect(box.status, box.text).toBe(200);
    const versions: Array<{ version: string; providers: Array<{ download_url: string }> }> = box.json.versions;
    const v = versions.find((x) => x.version === version);
    expect(v).toMatchObject({
      status: 'active',
      description_markdown: `built by packer ${version}`,
      providers: [expect.objectContaining({ name: 'virtualbox', hosted: true })],
    });
    assert(v, `no version ${version} in ${box.text}`);
    const url = v.providers[0].download_url;
    expect(url.startsWith(d.url)).toBe(true);
    const res = await d.http.send(url);
    expect(res.status).toBe(200);
    expect(
      createHash('sha256')
        .update(Buffer.from(await res.arrayBuffer()))
        .digest('hex'),
    ).toBe(createHash('sha256').update(file).digest('hex'));
  }

  it('publishes, uploads and releases a box over plain HTTP (direct upload and through the daemon)', async () => {
    const d = await startTestDaemon();
    try {
      const { token } = await d.user('builder', { orgs: ['acme'] });
      expect(
        (
          await d.http
            .withToken(token)
            .post('/api/v1/boxes', { box: { username: 'acme', name: 'web', is_private: false } })
        ).status,
      ).toBe(200);
      for (const [version, noDirectUpload] of [
        ['1.0.0', false],
        ['1.1.0', true],
      ] as const) {
        const box = join(work, `http-${version}.box`);
        const file = await makeBoxFile(box);
        const r = await packerBuild(d, token, { tag: 'acme/web', version, box, noDirectUpload });
        expect(r.code, r.output).toBe(0);
        expect(r.output).toMatch(/Releasing version/);
        await expectPublished(d, token, 'acme/web', version, file);
      }
    } finally {
      await d.stop();
    }
  });

  it('over HTTPS (--tls auto) with SSL_CERT_FILE set to the bundle `boxyard trust` wrote; refused without it', async () => {
    const d = await startTestDaemon({ config: { tls: 'auto' } });
    try {
      const { token } = await d.user('builder', { orgs: ['acme'] });
      expect(
        (
          await d.http
            .withToken(token)
            .post('/api/v1/boxes', { box: { username: 'acme', name: 'db', is_private: false } })
        ).status,
      ).toBe(200);
      const bundle = join(work, 'bundle.pem');
      const trusted = await runCli(['trust', d.url, '--fingerprint', localCaOf(d).fingerprint, '--out', bundle]);
      expect(trusted.code, trusted.stderr).toBe(0);
      const box = join(work, 'https.box');
      const file = await makeBoxFile(box);

      const refused = await packerBuild(d, token, { tag: 'acme/db', version: '1.0.0', box });
      expect(refused.code).not.toBe(0);
      expect(refused.output).toMatch(/x509: certificate signed by\s+unknown authority/);
      expect((await d.http.get('/api/v1/box/acme/db')).json.versions).toEqual([]);

      const r = await packerBuild(d, token, { tag: 'acme/db', version: '1.0.0', box, env: { SSL_CERT_FILE: bundle } });
      expect(r.code, r.output).toBe(0);
      expect(d.url).toMatch(/^https:\/\//);
      await expectPublished(d, token, 'acme/db', '1.0.0', file);
    } finally {
      await d.stop();
    }
  });
});
