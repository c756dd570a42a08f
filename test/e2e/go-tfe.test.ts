import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';

/** go-tfe 0.11.1's own tests from the Debian package golang-github-hashicorp-go-tfe-dev (CLIENTS.md §5). */
const GOPATH = '/usr/share/gocode';
const GO_TFE = join(GOPATH, 'src/github.com/hashicorp/go-tfe');
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function which(cmd: string): string | undefined {
  try {
    return execFileSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

const go = which('go');
const available = go !== undefined && existsSync(join(GO_TFE, 'agent_pool_test.go'));
if (!available && process.env.CI === 'true') {
  throw new Error(
    'The go-tfe end-to-end test is mandatory in CI: apt-get install -y golang-go golang-github-hashicorp-go-tfe-dev',
  );
}

/** Every subtest of go-tfe's TestAgentPools*; all must run and pass. */
const EXPECTED = [
  'TestAgentPoolsList',
  'TestAgentPoolsList/without_list_options',
  'TestAgentPoolsList/with_list_options',
  'TestAgentPoolsList/without_a_valid_organization',
  'TestAgentPoolsCreate',
  'TestAgentPoolsCreate/with_valid_options',
  'TestAgentPoolsCreate/when_options_is_missing_name',
  'TestAgentPoolsCreate/with_an_invalid_organization',
  'TestAgentPoolsRead',
  'TestAgentPoolsRead/when_the_agent_pool_exists',
  'TestAgentPoolsRead/when_the_agent_pool_does_not_exist',
  'TestAgentPoolsRead/without_a_valid_agent_pool_ID',
  'TestAgentPoolsUpdate',
  'TestAgentPoolsUpdate/with_valid_options',
  'TestAgentPoolsUpdate/when_updating_the_name',
  'TestAgentPoolsUpdate/without_a_valid_agent_pool_ID',
  'TestAgentPoolsDelete',
  'TestAgentPoolsDelete/with_valid_options',
  'TestAgentPoolsDelete/when_the_agent_pool_does_not_exist',
  'TestAgentPoolsDelete/when_the_agent_pool_ID_is_invalid',
];

/** go-tfe's organization tests that need only what Boxyard serves (List skips itself without TFC's seed data). */
const ORG_PATTERN = '^TestOrganizations(Create|Read|Update|Delete)$';
const EXPECTED_ORGS = [
  'TestOrganizationsCreate',
  'TestOrganizationsCreate/with_valid_options',
  'TestOrganizationsCreate/when_no_email_is_provided',
  'TestOrganizationsCreate/when_no_name_is_provided',
  'TestOrganizationsCreate/with_invalid_name',
  'TestOrganizationsRead',
  'TestOrganizationsRead/when_the_org_exists',
  'TestOrganizationsRead/when_the_org_exists/permissions_are_properly_decoded',
  'TestOrganizationsRead/when_the_org_exists/timestamps_are_populated',
  'TestOrganizationsRead/with_invalid_name',
  'TestOrganizationsRead/when_the_org_does_not_exist',
  'TestOrganizationsUpdate',
  'TestOrganizationsUpdate/with_valid_options',
  'TestOrganizationsUpdate/with_invalid_name',
  'TestOrganizationsUpdate/when_only_updating_a_subset_of_fields',
  'TestOrganizationsDelete',
  'TestOrganizationsDelete/with_valid_options',
  'TestOrganizationsDelete/with_invalid_name',
];

/**
 * go-tfe's workspace tests that need only what Boxyard serves (the VCS, lock and SSH-key ones need HCP's other
 * features): by-name Update and Delete (their helpers' cleanups delete by name), `include=organization` on lists, and
 * 422 for an unknown terraform-version.
 */
const WORKSPACES_PATTERN = '^TestWorkspaces(List|Create|Read|ReadByID|Update|UpdateByID|Delete|DeleteByID)$';
const EXPECTED_WORKSPACES = [
  'TestWorkspacesList',
  'TestWorkspacesList/without_list_options',
  'TestWorkspacesList/with_list_options',
  'TestWorkspacesList/when_searching_a_known_workspace',
  'TestWorkspacesList/when_searching_an_unknown_workspace',
  'TestWorkspacesList/without_a_valid_organization',
  'TestWorkspacesList/with_organization_included',
  'TestWorkspacesCreate',
  'TestWorkspacesCreate/with_valid_options',
  'TestWorkspacesCreate/when_options_is_missing_name',
  'TestWorkspacesCreate/when_options_has_an_invalid_name',
  'TestWorkspacesCreate/when_options_has_an_invalid_organization',
  'TestWorkspacesCreate/when_options_includes_both_an_operations_value_and_an_enforcement_mode_value',
  "TestWorkspacesCreate/when_an_agent_pool_ID_is_specified_without_'agent'_execution_mode",
  "TestWorkspacesCreate/when_'agent'_execution_mode_is_specified_without_an_an_agent_pool_ID",
  'TestWorkspacesCreate/when_an_error_is_returned_from_the_API',
  'TestWorkspacesRead',
  'TestWorkspacesRead/when_the_workspace_exists',
  'TestWorkspacesRead/when_the_workspace_exists/permissions_are_properly_decoded',
  'TestWorkspacesRead/when_the_workspace_exists/relationships_are_properly_decoded',
  'TestWorkspacesRead/when_the_workspace_exists/timestamps_are_properly_decoded',
  'TestWorkspacesRead/when_the_workspace_does_not_exist',
  'TestWorkspacesRead/when_the_organization_does_not_exist',
  'TestWorkspacesRead/without_a_valid_organization',
  'TestWorkspacesRead/without_a_valid_workspace',
  'TestWorkspacesReadByID',
  'TestWorkspacesReadByID/when_the_workspace_exists',
  'TestWorkspacesReadByID/when_the_workspace_exists/permissions_are_properly_decoded',
  'TestWorkspacesReadByID/when_the_workspace_exists/relationships_are_properly_decoded',
  'TestWorkspacesReadByID/when_the_workspace_exists/timestamps_are_properly_decoded',
  'TestWorkspacesReadByID/when_the_workspace_does_not_exist',
  'TestWorkspacesReadByID/without_a_valid_workspace_ID',
  'TestWorkspacesUpdate',
  'TestWorkspacesUpdate/when_updating_a_subset_of_values',
  'TestWorkspacesUpdate/with_valid_options',
  'TestWorkspacesUpdate/when_options_includes_both_an_operations_value_and_an_enforcement_mode_value',
  "TestWorkspacesUpdate/when_'agent'_execution_mode_is_specified_without_an_an_agent_pool_ID",
  'TestWorkspacesUpdate/when_an_error_is_returned_from_the_api',
  'TestWorkspacesUpdate/when_options_has_an_invalid_name',
  'TestWorkspacesUpdate/when_options_has_an_invalid_organization',
  'TestWorkspacesUpdateByID',
  'TestWorkspacesUpdateByID/when_updating_a_subset_of_values',
  'TestWorkspacesUpdateByID/with_valid_options',
  'TestWorkspacesUpdateByID/when_an_error_is_returned_from_the_api',
  'TestWorkspacesUpdateByID/without_a_valid_workspace_ID',
  'TestWorkspacesDelete',
  'TestWorkspacesDelete/with_valid_options',
  'TestWorkspacesDelete/when_organization_is_invalid',
  'TestWorkspacesDelete/when_workspace_is_invalid',
  'TestWorkspacesDeleteByID',
  'TestWorkspacesDeleteByID/with_valid_options',
  'TestWorkspacesDeleteByID/without_a_valid_workspace_ID',
];

/** Runs the binary and checks that exactly the expected subtests ran and none failed. */
async function expectAllPass(
  bin: string,
  env: Record<string, string>,
  pattern: string,
  expected: string[],
): Promise<void> {
  const { code, out } = await run(bin, env, pattern);
  const passed = [...out.matchAll(/--- PASS: (\S+)/g)].map((m) => m[1]);
  const failed = [...out.matchAll(/--- FAIL: (\S+)/g)].map((m) => m[1]);
  expect(failed, out).toEqual([]);
  expect(code, out).toBe(0);
  expect(passed.sort(), out).toEqual([...expected].sort());
}

/** The compiled test binary, cached under node_modules/.cache keyed by the package and Go versions. */
function testBinary(): string {
  if (go === undefined) throw new Error('building the go-tfe test binary needs go on the PATH');
  let pkg = 'unknown';
  try {
    // dpkg-query's own format field, not a template substitution
    pkg = execFileSync('dpkg-query', ['-W', '-f', `\${Version}`, 'golang-github-hashicorp-go-tfe-dev'], {
      encoding: 'utf8',
    });
  } catch {
    /* not a Debian system: the Go version and source path still key the cache */
  }
  const goVersion = execFileSync(go, ['version'], { encoding: 'utf8' });
  const key = createHash('sha256').update(`${pkg}\n${goVersion}\n${GO_TFE}`).digest('hex').slice(0, 16);
  const dir = join(ROOT, 'node_modules/.cache/boxyard-go-tfe', key);
  const bin = join(dir, 'gotfe.test');
  if (existsSync(bin)) return bin;
  mkdirSync(dir, { recursive: true });
  const cache = mkdtempSync(join(tmpdir(), 'boxyard-gocache-'));
  const partial = `${bin}.${process.pid}.partial`;
  try {
    execFileSync(go, ['test', '-c', '-o', partial, 'github.com/hashicorp/go-tfe'], {
      cwd: dir,
      stdio: 'pipe',
      timeout: 180_000,
      env: { ...process.env, GO111MODULE: 'off', GOPATH, GOCACHE: cache, GOFLAGS: '' },
    });
    renameSync(partial, bin);
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
  return bin;
}

function run(bin: string, env: Record<string, string>, pattern: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, ['-test.run', pattern, '-test.v', '-test.count', '1', '-test.timeout', '120s'], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
    });
    child.stderr.on('data', (c) => {
      out += c;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
  });
}

// Skipped only off CI without go or go-tfe's sources; under CI=true their absence fails above.
describe.skipIf(!available)("go-tfe's own agent pool, organization and workspace tests against Boxyard", () => {
  let daemon: TestDaemon;
  let token: string;
  beforeAll(async () => {
    daemon = await startTestDaemon();
    // A plain user, not an administrator: go-tfe creates its organizations (it owns them); its
    // helpers delete each pool before creating the next one in the same organization, so it would
    // work within HCP Terraform's agent-pool-limit of 1 too.
    token = (await daemon.user('gotfe')).token;
  }, 240_000);
  afterAll(async () => {
    await daemon?.stop();
  });

  it('runs TestAgentPools* and every subtest passes', async () => {
    await expectAllPass(testBinary(), { TFE_ADDRESS: daemon.url, TFE_TOKEN: token }, '^TestAgentPools', EXPECTED);
    // The helpers' cleanups deleted every organization they created, and with it every pool.
    const orgs = await daemon.http.withToken(token).get('/api/v2/organizations');
    expect(orgs.status).toBe(200);
    expect(orgs.json.data).toEqual([]);
  }, 240_000);

  it('runs TestWorkspaces{List,Create,Read,ReadByID,Update,UpdateByID,Delete,DeleteByID} and every subtest passes', async () => {
    const env = { TFE_ADDRESS: daemon.url, TFE_TOKEN: token };
    await expectAllPass(testBinary(), env, WORKSPACES_PATTERN, EXPECTED_WORKSPACES);
    const orgs = await daemon.http.withToken(token).get('/api/v2/organizations');
    expect(orgs.json.data).toEqual([]);
  }, 240_000);

  it('runs TestOrganizations{Create,Read,Update,Delete} and every subtest passes', async () => {
    await expectAllPass(testBinary(), { TFE_ADDRESS: daemon.url, TFE_TOKEN: token }, ORG_PATTERN, EXPECTED_ORGS);
    const orgs = await daemon.http.withToken(token).get('/api/v2/organizations');
    expect(orgs.json.data).toEqual([]);
  }, 240_000);
});

// Terraform's Go client over HTTPS (--tls auto), trusting only the daemon's CA (Go reads SSL_CERT_FILE).
describe.skipIf(!available)("go-tfe over HTTPS, trusting the daemon's own CA", () => {
  let daemon: TestDaemon;
  let token: string;
  beforeAll(async () => {
    daemon = await startTestDaemon({ config: { tls: 'auto' } });
    token = (await daemon.user('gotfe')).token;
  }, 240_000);
  afterAll(async () => {
    await daemon?.stop();
  });

  it('runs TestAgentPools* with SSL_CERT_FILE set to the CA, and fails without it', async () => {
    const address = daemon.url.replace('127.0.0.1', 'localhost');
    const caFile = join(daemon.dataDir, 'tls', 'ca.pem');
    await expectAllPass(
      testBinary(),
      { TFE_ADDRESS: address, TFE_TOKEN: token, SSL_CERT_FILE: caFile },
      '^TestAgentPools',
      EXPECTED,
    );
    const refused = await run(
      testBinary(),
      { TFE_ADDRESS: address, TFE_TOKEN: token, SSL_CERT_FILE: '/etc/ssl/certs/ca-certificates.crt' },
      '^TestAgentPoolsList$',
    );
    expect(refused.code, refused.out).not.toBe(0);
    expect(refused.out).toMatch(/certificate signed by unknown authority/);
  }, 240_000);
});
