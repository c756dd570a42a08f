import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startTestDaemon, type TestDaemon } from '../helpers/daemon';
import { JSONAPI, createWorkspace } from '../helpers/agents';
import {
  chromiumAvailable,
  ensureUiBuilt,
  fieldIssue,
  launchChromium,
  noApiWords,
  signIn,
} from '../helpers/ui-browser';

// Organizations, agent pools, agent tokens and workspaces made through the web UI's forms (their rules shown, a
// broken one refused beside its field), an agent seen live, a workspace run on a pool and the pool limited to it.
// What the UI did is checked against the API.

const haveChromium = chromiumAvailable('The organizations and pools UI test');

// Skipped only off CI without Chromium; under CI=true chromiumAvailable() throws instead.
describe.skipIf(!haveChromium)('organizations, pools and workspaces in the web UI, in headless Chromium', () => {
  let daemon: TestDaemon;
  let browser: Browser;
  let page: Page;
  let cspViolations: string[] = [];
  const shots = mkdtempSync(join(tmpdir(), 'boxyard-ui-pools-'));
  const jsonApi = () => daemon.http.withToken(daemon.adminToken).withContentType(JSONAPI);

  beforeAll(async () => {
    ensureUiBuilt();
    daemon = await startTestDaemon();
    ({ browser, page, cspViolations } = await launchChromium());
    await signIn(page, daemon.url, ADMIN.username, ADMIN.password);
    await page.locator('.topbar .who', { hasText: ADMIN.username }).waitFor();
  });
  // Every page the UI shows works under the daemon's Content Security Policy: nothing it does is refused.
  afterEach(() => {
    expect(cspViolations).toEqual([]);
  });
  afterAll(async () => {
    process.stdout.write(`UI screenshots: ${shots}\n`);
    await browser?.close();
    await daemon?.stop();
  });

  it('creates an organization, an agent pool and a token whose secret is shown once', async () => {
    await page.getByRole('link', { name: 'Organizations' }).click();
    const newOrg = page.getByRole('form', { name: 'New organization' });
    // The name's rule is there before typing; a name that breaks it is refused beside the field, in words.
    await newOrg.getByText(/^Up to 64 letters, numbers, "-", "_" and "\.", starting with a letter or number/).waitFor();
    await newOrg.getByLabel('Name').fill('e2e org!');
    await page.getByRole('button', { name: 'Create organization' }).click();
    await newOrg
      .locator('.field', { has: page.getByLabel('Name') })
      .getByRole('alert')
      .getByText('May contain only letters, numbers, "-", "_" and "." and must start with a letter or number')
      .waitFor();
    expect(await page.locator('main').textContent()).not.toMatch(/Invalid request body|organization\.name/);
    await newOrg.getByLabel('Name').fill('e2e-org');
    await page.getByRole('button', { name: 'Create organization' }).click();
    await page.getByRole('link', { name: 'e2e-org' }).waitFor();

    await page.getByRole('link', { name: 'Agent pools' }).click();
    const newPool = page.getByRole('form', { name: 'New agent pool' });
    await newPool.getByText(/^Up to 90 letters, numbers, "-" and "_"/).waitFor();
    await newPool.getByLabel('Pool name').fill('e2e pool');
    await page.getByRole('button', { name: 'Create pool' }).click();
    await fieldIssue(newPool, 'Pool name').getByText('Name may contain only letters, numbers, "-" and "_"').waitFor();
    await page.screenshot({ path: join(shots, 'pool-name-refused.png'), fullPage: true });
    await noApiWords(page);
    expect((await jsonApi().get('/api/v2/organizations/e2e-org/agent-pools')).json.data).toEqual([]);
    await newPool.getByLabel('Pool name').fill('e2e-pool');
    await page.getByRole('button', { name: 'Create pool' }).click();
    await page.getByRole('link', { name: 'e2e-pool' }).click();
    await page.getByRole('heading', { name: 'e2e-org / e2e-pool' }).waitFor();

    // A description longer than the contract's limit is refused beside its field, and no token is made.
    const newToken = page.getByRole('form', { name: 'New agent token' });
    await newToken.getByText(/^What the token is for/).waitFor();
    await newToken.getByLabel('Description').fill('x'.repeat(1025));
    await page.getByRole('button', { name: 'Create token' }).click();
    await fieldIssue(newToken, 'Description').getByText('Must be at most 1024 characters').waitFor();
    await noApiWords(page);
    const poolOf = (await jsonApi().get('/api/v2/organizations/e2e-org/agent-pools')).json.data[0].id;
    expect((await jsonApi().get(`/api/v2/agent-pools/${poolOf}/authentication-tokens`)).json.data).toEqual([]);
    await newToken.getByLabel('Description').fill('lab agents');
    await page.getByRole('button', { name: 'Create token' }).click();
    const secret = (await page.getByLabel('agent token', { exact: true }).textContent()) ?? '';
    expect(secret.length).toBeGreaterThan(20);
    await page.getByRole('cell', { name: 'lab agents' }).waitFor();

    // An agent registers with the token: the page polls and shows it live, then lets an exited one be deleted.
    const agentHttp = daemon.http.withToken(secret);
    const reg = await agentHttp.post('/api/agent/register', { name: 'e2e-agent' });
    expect(reg.status).toBe(201);
    const agentRow = page.getByRole('row', { name: /e2e-agent/ });
    await agentRow.getByText('idle', { exact: true }).waitFor();
    expect((await agentHttp.post(`/api/agent/agents/${reg.json.agent.id}/status`, { status: 'exited' })).status).toBe(
      200,
    );
    await agentRow.getByText('exited', { exact: true }).waitFor();
    await page.screenshot({ path: join(shots, 'pool.png'), fullPage: true });
    await agentRow.getByRole('button', { name: 'Delete' }).click();
    await agentRow.waitFor({ state: 'detached' });
  });

  it('runs a workspace on the pool and limits the pool to that workspace', async () => {
    const admin = jsonApi();
    const pools = await admin.get('/api/v2/organizations/e2e-org/agent-pools');
    expect(pools.status, pools.text).toBe(200);
    const poolId: string = pools.json.data[0].id;

    await page.getByRole('link', { name: 'Organizations' }).click();
    await page.getByRole('link', { name: 'e2e-org' }).click();
    const newWorkspace = page.getByRole('form', { name: 'New workspace' });
    await newWorkspace.getByLabel('Workspace name').fill('e2e ws');
    await page.getByRole('button', { name: 'Create workspace' }).click();
    await fieldIssue(newWorkspace, 'Workspace name')
      .getByText('Name may contain only letters, numbers, "-" and "_"')
      .waitFor();
    await noApiWords(page);
    expect((await admin.get('/api/v2/organizations/e2e-org/workspaces')).json.data).toEqual([]);
    await newWorkspace.getByLabel('Workspace name').fill('e2e-ws');
    await page.getByRole('button', { name: 'Create workspace' }).click();
    // Made without a mode, it takes the organization's defaults; a pool makes it its own, and back.
    const row = page.getByRole('row', { name: /e2e-ws/ });
    await row.getByText('inherited from the organization').waitFor();
    const attributes = async () =>
      (await admin.get('/api/v2/organizations/e2e-org/workspaces')).json.data[0].attributes;
    // Chosen, then saved with its button (as the organization's settings above are): nothing is sent before.
    await page.getByLabel('Agent pool of e2e-ws').selectOption({ label: 'agent pool e2e-pool' });
    expect((await attributes())['setting-overwrites']).toEqual({ 'execution-mode': false, 'agent-pool': false });
    await row.getByRole('button', { name: 'Save' }).click();
    await expect.poll(attributes).toMatchObject({
      name: 'e2e-ws',
      'execution-mode': 'agent',
      'agent-pool-id': poolId,
      'setting-overwrites': { 'execution-mode': true, 'agent-pool': true },
    });
    await row.getByText('its own').waitFor();
    await page.getByLabel('Agent pool of e2e-ws').selectOption('default');
    await row.getByRole('button', { name: 'Save' }).click();
    await expect.poll(attributes).toMatchObject({
      'execution-mode': 'remote',
      'agent-pool-id': null,
      'setting-overwrites': { 'execution-mode': false, 'agent-pool': false },
    });
    await row.getByText('inherited from the organization').waitFor();
    await page.getByLabel('Agent pool of e2e-ws').selectOption({ label: 'agent pool e2e-pool' });
    await row.getByRole('button', { name: 'Save' }).click();
    await expect.poll(attributes).toMatchObject({ 'execution-mode': 'agent', 'agent-pool-id': poolId });

    await page.goto(`${daemon.url}/ui/agent-pools/e2e-org/${poolId}`);
    await page.getByLabel('Every workspace of e2e-org').uncheck();
    await page.getByRole('list', { name: 'Allowed workspaces' }).getByText('runs here').waitFor();
    await page.getByRole('checkbox', { name: 'e2e-ws' }).check();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect
      .poll(async () => (await admin.get(`/api/v2/agent-pools/${poolId}`)).json.data)
      .toMatchObject({
        attributes: { 'organization-scoped': false },
        relationships: { 'allowed-workspaces': { data: [{ type: 'workspaces' }] } },
      });
    await page.screenshot({ path: join(shots, 'pool-scope.png'), fullPage: true });

    // Another workspace may not take the pool now: the refusal sits beside its pool, under the rule said above them.
    await createWorkspace(admin, 'e2e-org', 'other-ws');
    await page.goto(`${daemon.url}/ui/organizations/e2e-org`);
    const other = page.getByRole('row', { name: /other-ws/ });
    await page
      .getByText(/^Runs on: A pool that is not for the whole organization runs only the workspaces it allows/)
      .waitFor();
    await page.getByLabel('Agent pool of other-ws').selectOption({ label: 'agent pool e2e-pool' });
    await other.getByRole('button', { name: 'Save' }).click();
    await other.getByRole('alert').getByText('This workspace may not use agent pool "e2e-pool"').waitFor();
    await noApiWords(page);
    const otherWs = (await admin.get('/api/v2/organizations/e2e-org/workspaces')).json.data.find(
      (w: { attributes: { name: string } }) => w.attributes.name === 'other-ws',
    );
    expect(otherWs.attributes['agent-pool-id']).toBeNull();
    await page.screenshot({ path: join(shots, 'workspace-refused.png'), fullPage: true });
  });
});
