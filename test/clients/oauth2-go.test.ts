import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli';
import { localCaOf, startTestDaemon, type TestDaemon } from '../helpers/daemon';

/*
 * HCP's Go SDK signs in through golang.org/x/oauth2/clientcredentials (Debian golang-golang-x-oauth2-dev): the
 * real library, built with Debian's sources (oauth2-go/main.go), asks Boxyard's POST /oauth2/token for a token in
 * each of its auth styles and calls the API with it. Over HTTPS with the daemon's own CA (hcp-sdk-go takes only an
 * https auth URL), trusted through SSL_CERT_FILE set to the bundle `boxyard trust` wrote, as a pipeline runs Packer.
 */
const GOPATH = '/usr/share/gocode';
const OAUTH2 = join(GOPATH, 'src/golang.org/x/oauth2/clientcredentials/clientcredentials.go');
const MAIN = fileURLToPath(new URL('./oauth2-go/main.go', import.meta.url));

function goVersion(): string | undefined {
  try {
    return execFileSync('go', ['version'], { encoding: 'utf8' });
  } catch {
    return undefined;
  }
}
const available = goVersion() !== undefined && existsSync(OAUTH2);
if (!available && process.env.CI === 'true') {
  throw new Error('The oauth2 client test is mandatory in CI: apt-get install -y golang-go golang-golang-x-oauth2-dev');
}

interface Outcome {
  token_type?: string;
  seconds?: number;
  status?: number;
  body?: string;
  error?: string;
}

describe.skipIf(!available)('golang.org/x/oauth2/clientcredentials against POST /oauth2/token', () => {
  let d: TestDaemon;
  let dir: string;
  let bin: string;
  let bundle: string;
  let client: { client_id: string; client_secret: string };
  // Asynchronously: the daemon answers in this process.
  const signIn = async (style: string, secret = client.client_secret, trust = true): Promise<Outcome> =>
    JSON.parse(
      (
        await promisify(execFile)(bin, [d.url, client.client_id, secret, style], {
          timeout: 60_000,
          env: { ...process.env, SSL_CERT_FILE: trust ? bundle : join(dir, 'no-such-bundle.pem') },
        })
      ).stdout,
    );

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'boxyard-oauth2-go-'));
    bin = join(dir, 'oauth2-go');
    execFileSync('go', ['build', '-o', bin, MAIN], {
      stdio: 'pipe',
      timeout: 180_000,
      env: { ...process.env, GO111MODULE: 'off', GOPATH, GOCACHE: join(dir, 'cache'), GOFLAGS: '' },
    });
    d = await startTestDaemon({ config: { tls: 'auto' } });
    bundle = join(dir, 'bundle.pem');
    const trusted = await runCli(['trust', d.url, '--fingerprint', localCaOf(d).fingerprint, '--out', bundle]);
    expect(trusted.code, trusted.stderr).toBe(0);
    const owner = (await d.user('builder', { orgs: ['builds'] })).http;
    const made = await owner.post('/api/boxyard/organizations/builds/service-principals', {
      service_principal: { name: 'go' },
    });
    client = made.json.service_principal;
  }, 240_000);
  afterAll(async () => {
    await d?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each(['header', 'params', 'auto'])(
    'signs in with AuthStyle %s and calls the API with the token',
    async (style) => {
      const out = await signIn(style);
      expect(out.error).toBeUndefined();
      expect(out.token_type).toBe('Bearer');
      // The library turns expires_in into an expiry: about an hour from now.
      expect(out.seconds).toBeGreaterThan(3000);
      expect(out.seconds).toBeLessThanOrEqual(3600);
      expect(out.status).toBe(200);
      expect(JSON.parse(out.body ?? '{}').user.username).toBe(client.client_id);
    },
  );

  it('refuses the daemon without the trust bundle: nothing signs in over an unknown CA', async () => {
    expect(d.url).toMatch(/^https:\/\//);
    const out = await signIn('header', client.client_secret, false);
    expect(out.status).toBeUndefined();
    expect(out.error).toMatch(/x509: certificate signed by\s+unknown authority/);
  });

  it.each(['header', 'params', 'auto'])(
    'reports invalid_client for a wrong secret with AuthStyle %s',
    async (style) => {
      const out = await signIn(style, 'not-the-secret');
      expect(out.status).toBeUndefined();
      expect(out.error).toMatch(/401/);
      expect(out.error).toMatch(/invalid_client/);
    },
  );
});
