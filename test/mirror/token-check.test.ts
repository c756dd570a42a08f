import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKEN_CHECK_WORDS } from '../../daemon/src/contract/wire/mirror';
import { CLIENT_CA_FILE } from '../../daemon/src/contract/lan';
import { localCaOf, startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient } from '../helpers/http';
import { allowHcpStorage, startHcpUpstream, type AuthenticateAnswer, type HcpUpstream } from '../helpers/hcp-upstream';
import { hcpOrganization } from '../helpers/hcp-upstream-boxes';
import { runCli } from '../helpers/cli';

/**
 * The token check of a plan and of an upstream's "Test": `GET /api/v2/authenticate`, on 404 `/api/v1/authenticate`.
 * An upstream answering 404 to both cannot check tokens: the plan says so and goes on; a 401 or 403 from either fails
 * it with the upstream's words and makes nothing. The fake upstreams are on 127.0.0.1.
 */
describe('the token check of plans and upstream tests', () => {
  const TOKEN = 'check-token';
  const amd = randomBytes(10_000);
  const arm = randomBytes(5_000);
  const upstreams: HcpUpstream[] = [];
  let d: TestDaemon;
  let admin: HttpClient;

  const upstream = async (authenticate: Partial<Record<'v1' | 'v2', AuthenticateAnswer>>) => {
    const u = await startHcpUpstream({ token: TOKEN, boxes: hcpOrganization({ amd, arm }), authenticate });
    upstreams.push(u);
    return u;
  };
  const asked = (u: HcpUpstream) => u.requests.filter((q) => q.path.endsWith('/authenticate')).map((q) => q.path);
  const plan = (u: HcpUpstream, token: string | undefined = TOKEN) =>
    admin.post('/api/boxyard/mirror-plans', {
      mirror: { upstream: { url: u.url, ...(token ? { token } : {}) }, source: 'hashi' },
    });
  /** The upstream "Test" of a stored upstream with the token. */
  const test = async (u: HcpUpstream, name: string) => {
    const made = await admin.post('/api/boxyard/upstreams', { upstream: { name, url: u.url, token: TOKEN } });
    expect(made.status, made.text).toBe(201);
    return (await admin.post(`/api/boxyard/upstreams/${made.json.upstream.id}/test`, {})).json.test;
  };
  const nothingMirrored = async () => {
    expect((await admin.get('/api/boxyard/mirrors')).json.mirrors).toEqual([]);
    expect((await admin.get('/api/v1/user/hashi')).status).toBe(404);
  };
  const cliEnv = () => ({ BOXYARD_SERVER: d.url, BOXYARD_TOKEN: d.adminToken, BOXYARD_UPSTREAM_TOKEN: TOKEN });

  beforeAll(async () => {
    d = await startTestDaemon();
    admin = d.http.withToken(d.adminToken);
    await allowHcpStorage(admin);
  });
  afterAll(async () => {
    await d?.stop();
    await Promise.all(upstreams.map((u) => u.stop()));
  });

  it('404 at both authenticate paths: the plan says the token was not checked and goes on; so do the CLI and Test', async () => {
    const u = await upstream({ v2: 404, v1: 404 });
    const r = await plan(u);
    expect(r.status, r.text).toBe(200);
    expect(r.json.plan.upstream).toEqual({ url: u.url, kind: 'registry', has_token: true, token_check: 'not_checked' });
    expect(r.json.plan.boxes.map((b: { target: string }) => b.target).sort()).toEqual(['hashi/secret', 'hashi/web']);
    expect(asked(u)).toEqual(['/api/v2/authenticate', '/api/v1/authenticate']);
    const dry = await runCli(['mirror', '--upstream', u.url, 'hashi', '--dry-run'], cliEnv());
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout.split('\n')[1]).toBe(`token check: ${TOKEN_CHECK_WORDS.not_checked}`);
    await nothingMirrored();
    expect(await test(u, 'no-check')).toMatchObject({
      ok: true,
      message: `Upstream "no-check" answered: ${TOKEN_CHECK_WORDS.not_checked}.`,
    });
  });

  it('404 at v2 and 200 at v1: accepted, in the plan, the CLI and Test', async () => {
    const u = await upstream({ v2: 404 });
    const r = await plan(u);
    expect(r.status, r.text).toBe(200);
    expect(r.json.plan.upstream.token_check).toBe('accepted');
    expect(asked(u)).toEqual(['/api/v2/authenticate', '/api/v1/authenticate']);
    const dry = await runCli(['mirror', '--upstream', u.url, 'hashi', '--dry-run'], cliEnv());
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout.split('\n')[1]).toBe(`token check: ${TOKEN_CHECK_WORDS.accepted}`);
    expect(await test(u, 'v1-only')).toMatchObject({
      ok: true,
      message: 'Upstream "v1-only" answered: it accepted the token.',
    });
  });

  it('v2 answering: accepted without asking v1; no token: nothing checked, token_check null', async () => {
    const u = await upstream({});
    expect((await plan(u)).json.plan.upstream.token_check).toBe('accepted');
    expect(asked(u)).toEqual(['/api/v2/authenticate']);
    const anonymous = await plan(u, '');
    expect(anonymous.status, anonymous.text).toBe(200);
    expect(anonymous.json.plan.upstream).toMatchObject({ has_token: false, token_check: null });
    expect(asked(u)).toEqual(['/api/v2/authenticate']);
    const dry = await runCli(['mirror', '--upstream', u.url, 'hashi', '--dry-run'], {
      ...cliEnv(),
      BOXYARD_UPSTREAM_TOKEN: '',
    });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).not.toContain('token check');
  });

  it.each([
    ['401 at v2', { v2: 401 }, 401, /Invalid authentication token.*refuses the token/],
    ['403 at v2', { v2: 403 }, 403, /You are not authorized to access this resource.*may not see this/],
    ['404 at v2, 401 at v1', { v2: 404, v1: 401 }, 401, /Invalid authentication token/],
    ['404 at v2, 403 at v1', { v2: 404, v1: 403 }, 403, /You are not authorized to access this resource/],
  ] as const)(
    '%s fails the plan, the CLI and Test with the upstream words; nothing is made',
    async (_, answers, status, words) => {
      const u = await upstream(answers);
      const r = await plan(u);
      expect(r.status, r.text).toBe(502);
      expect(r.json).toMatchObject({
        code: 'upstream_failed',
        errors: [expect.stringMatching(new RegExp(`${status}.*`))],
      });
      expect(r.json.errors[0]).toMatch(words);
      // Nothing past the check was asked: no catalog, no box list.
      expect(u.requests.every((q) => q.path.endsWith('/authenticate'))).toBe(true);
      const dry = await runCli(['mirror', '--upstream', u.url, 'hashi'], cliEnv());
      expect(dry.code).toBe(1);
      expect(dry.stderr).toMatch(words);
      await nothingMirrored();
      expect(await test(u, `refused-${upstreams.length}`)).toMatchObject({ ok: false, code: 'upstream_failed' });
    },
  );
});

describe('boxyard mirror on a daemon with its own CA (--tls auto)', () => {
  let hcp: HcpUpstream;
  let d: TestDaemon;

  beforeAll(async () => {
    hcp = await startHcpUpstream({
      token: 'tls-token',
      boxes: hcpOrganization({ amd: randomBytes(4_000), arm: randomBytes(3_000) }),
    });
    d = await startTestDaemon({ config: { tls: 'auto' } });
    await allowHcpStorage(d.http.withToken(d.adminToken));
  });
  afterAll(async () => {
    await d?.stop();
    await hcp?.stop();
  });

  it('the lines for users start with the trust step, and name the CA file it writes', async () => {
    const fingerprint = localCaOf(d).fingerprint;
    const run = await runCli(['mirror', '--upstream', hcp.url, 'hashi/web'], {
      BOXYARD_SERVER: d.url,
      BOXYARD_TOKEN: d.adminToken,
      BOXYARD_CA_FILE: join(d.dataDir, 'tls', 'ca.pem'),
      BOXYARD_UPSTREAM_TOKEN: 'tls-token',
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('token check: it accepted the token');
    const lines = run.stdout.split('\n');
    const fetchAt = lines.findIndex((l) => l.includes(`curl -fsSk -o ${CLIENT_CA_FILE} ${d.url}/ca.pem`));
    const checkAt = lines.findIndex((l) => l.includes(`grep -qi '=${fingerprint}$'`));
    const serverAt = lines.indexOf(`export VAGRANT_SERVER_URL=${d.url}`);
    expect(fetchAt).toBeGreaterThan(0);
    expect(checkAt).toBe(fetchAt + 1);
    expect(serverAt).toBeGreaterThan(checkAt);
    expect(lines).toContain(`vagrant box add --cacert ${CLIENT_CA_FILE} hashi/web   # and so each box`);
    expect(lines).toContain(`config.vm.box_download_ca_cert = File.expand_path("${CLIENT_CA_FILE}")`);
  });
});
