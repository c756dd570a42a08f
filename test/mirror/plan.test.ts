import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient } from '../helpers/http';
import { allowHcpStorage, startHcpUpstream, type HcpUpstream } from '../helpers/hcp-upstream';
import { hcpOrganization } from '../helpers/hcp-upstream-boxes';
import { runCli } from '../helpers/cli';

/**
 * A plan before the copy: `POST /api/boxyard/mirror-plans` says what a mirror would
 * fetch (boxes, versions, files, bytes), what the upstream would not show, and whether it fits
 * the disk, and makes nothing; a refused token fails it with the upstream's words (a plan that
 * does not fit: test/mirror/crash.test.ts).
 */
describe('mirror plans', () => {
  const TOKEN = 'plan-token';
  const amd = randomBytes(50_000);
  const arm = randomBytes(20_000);
  let hcp: HcpUpstream;
  let d: TestDaemon;
  let admin: HttpClient;

  beforeAll(async () => {
    hcp = await startHcpUpstream({ token: TOKEN, boxes: hcpOrganization({ amd, arm }) });
    d = await startTestDaemon();
    admin = d.http.withToken(d.adminToken);
    await allowHcpStorage(admin);
  });
  afterAll(async () => {
    await d?.stop();
    await hcp?.stop();
  });

  const nothingMade = async () => {
    expect((await admin.get('/api/boxyard/upstreams')).json.upstreams).toEqual([]);
    expect((await admin.get('/api/boxyard/mirrors')).json.mirrors).toEqual([]);
    expect((await admin.get('/api/v1/user/hashi')).status).toBe(404);
  };

  it('lists boxes, versions, files and bytes, the boxes skipped and why, and the free space after; it makes nothing', async () => {
    const r = await admin.post('/api/boxyard/mirror-plans', {
      mirror: { upstream: { url: hcp.url, token: TOKEN }, source: 'hashi' },
    });
    expect(r.status, r.text).toBe(200);
    const plan = r.json.plan;
    const perVersion = [
      { version: '1.1.0', files: 2, bytes: amd.length + arm.length },
      { version: '1.0.0', files: 1, bytes: amd.length },
    ];
    expect(plan.boxes).toEqual(
      expect.arrayContaining([
        {
          source: 'hashi/web',
          target: 'hashi/web',
          exists: false,
          private: false,
          versions: perVersion,
          files: 3,
          bytes: 2 * amd.length + arm.length,
        },
        {
          source: 'hashi/secret',
          target: 'hashi/secret',
          exists: false,
          private: true,
          versions: perVersion,
          files: 3,
          bytes: 2 * amd.length + arm.length,
        },
      ]),
    );
    expect(plan.skipped).toEqual([{ box: 'hashi/hidden', reason: expect.stringMatching(/403/) }]);
    expect(plan.totals).toEqual({
      boxes: 2,
      versions: 4,
      files: 6,
      bytes: 4 * amd.length + 2 * arm.length,
      unknown_sizes: 0,
    });
    expect(plan.storage).toMatchObject({ needed_bytes: 4 * amd.length + 2 * arm.length, fits: true });
    // A bucket has no free space to count (the scale-out pass); the data folder's disk has (test/mirror/crash.test.ts:
    // one too small).
    if (process.env.BOXYARD_TEST_S3_URL)
      expect(plan.storage).toMatchObject({ free_bytes: null, reserve_bytes: null, free_after_bytes: null });
    else
      expect(plan.storage).toMatchObject({
        reserve_bytes: 512 * 1024 * 1024,
        free_after_bytes: plan.storage.free_bytes - plan.storage.needed_bytes,
      });
    expect(plan.upstream).toEqual({ url: hcp.url, kind: 'registry', has_token: true, token_check: 'accepted' });
    // Nothing was fetched but sizes (HEAD), and nothing made.
    expect(hcp.requests.filter((q) => q.server === 'storage' && q.method === 'GET')).toEqual([]);
    await nothingMade();
    // --as, a version filter and --public shape it as they would the job.
    const narrowed = await admin.post('/api/boxyard/mirror-plans', {
      mirror: {
        upstream: { url: hcp.url, token: TOKEN },
        source: 'hashi/secret',
        target: 'lab/secret',
        latest: 1,
        architectures: ['arm64'],
        private: false,
      },
    });
    expect(narrowed.json.plan.boxes).toEqual([
      {
        source: 'hashi/secret',
        target: 'lab/secret',
        exists: false,
        private: false,
        versions: [{ version: '1.1.0', files: 1, bytes: arm.length }],
        files: 1,
        bytes: arm.length,
      },
    ]);
  });

  it('a token the upstream refuses fails the plan with its words, and makes nothing; so does an address a user may not reach', async () => {
    const r = await admin.post('/api/boxyard/mirror-plans', {
      mirror: { upstream: { url: hcp.url, token: 'wrong' }, source: 'hashi' },
    });
    expect(r.status, r.text).toBe(502);
    expect(r.json).toMatchObject({
      code: 'upstream_failed',
      errors: [expect.stringMatching(/401.*Invalid authentication token.*refuses the token/)],
    });
    await nothingMade();
    const alice = (await d.user('alice')).http;
    const refused = await alice.post('/api/boxyard/mirror-plans', {
      mirror: { upstream: { url: hcp.url }, source: 'hashi' },
    });
    expect(refused.status).toBe(422);
    expect(refused.json.code).toBe('address_not_allowed');
    expect((await alice.post('/api/boxyard/mirror-plans', { mirror: { source: 'hashi' } })).status).toBe(403);
  });

  it('the CLI: --dry-run prints the plan and changes nothing; without it the copy follows and ends with the lines to give users', async () => {
    const env = { BOXYARD_SERVER: d.url, BOXYARD_TOKEN: d.adminToken, BOXYARD_UPSTREAM_TOKEN: TOKEN };
    const dry = await runCli(['mirror', '--upstream', hcp.url, 'hashi', '--dry-run'], env);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/^plan: .* hashi → hashi$/m);
    expect(dry.stdout).toMatch(/^ {2}hashi\/web \(new\) public: 1\.1\.0, 1\.0\.0 \(3 files, /m);
    expect(dry.stdout).toMatch(/^ {2}hashi\/secret \(new\) private: /m);
    expect(dry.stdout).toMatch(/^ {2}skipped hashi\/hidden: .*403/m);
    expect(dry.stdout).toMatch(/^total: 2 boxes, 4 versions, 6 files, /m);
    expect(dry.stdout).toMatch(
      process.env.BOXYARD_TEST_S3_URL
        ? /^to fetch: .* \(into the bucket: no disk to check\)$/m
        : /^to fetch: .*; free now .*, after .*: fits$/m,
    );
    await nothingMade();
    const bad = await runCli(['mirror', '--upstream', hcp.url, 'hashi', '--dry-run'], {
      ...env,
      BOXYARD_UPSTREAM_TOKEN: 'wrong',
    });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/Invalid authentication token/);
    const run = await runCli(
      ['mirror', '--upstream', hcp.url, 'hashi', '--parallel', '2', '--follow-revocations'],
      env,
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('published hashi/web 1.1.0, 1.0.0');
    expect(run.stdout).toMatch(/^skipped hashi\/hidden: /m);
    expect(run.stdout).toContain(`export VAGRANT_SERVER_URL=${d.url}`);
    expect(run.stdout).toContain(`config.vm.box_url = "${d.url}/hashi/`);
    // Plain HTTP: no trust step (test/mirror/token-check.test.ts: the one under --tls auto).
    expect(run.stdout).not.toMatch(/ca\.pem|--cacert|box_download_ca_cert/);
    const mirrors = (await admin.get('/api/boxyard/mirrors')).json.mirrors;
    expect(mirrors).toEqual([
      expect.objectContaining({ source: 'hashi', parallel: 2, follow_revocations: true, private: null }),
    ]);
  });
});
