import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient } from '../helpers/http';
import { JSONAPI, createAgentToken, createOrg, createPool, createWorkspace, doc, refs } from '../helpers/agents';
import { chromiumAvailable, ensureUiBuilt, fieldIssue, launchChromium, signIn } from '../helpers/ui-browser';

// Agents in the web UI: live status with "last seen … ago", hiding exited agents, deleting them,
// renaming a pool, the pool's workspaces by name, per-status counts in the pool list (one request),
// the `boxyard agent` command next to a new token, the organization's agent-pool limit and
// defaults, and the pool-limit refusal as a control. What the UI does is checked against the API.

const haveChromium = chromiumAvailable('The agents UI test');

// Skipped only off CI without Chromium; under CI=true chromiumAvailable() throws instead.
describe.skipIf(!haveChromium)('agents, pools and organizations in the web UI', () => {
  let daemon: TestDaemon;
  let browser: Browser;
  let page: Page;
  let cspViolations: string[] = [];
  let api: HttpClient;
  let poolId: string;
  const agents: ChildProcess[] = [];
  const shots = mkdtempSync(join(tmpdir(), 'boxyard-ui-agents-'));

  beforeAll(async () => {
    ensureUiBuilt();
    daemon = await startTestDaemon();
    api = daemon.http.withToken(daemon.adminToken).withContentType(JSONAPI);
    await createOrg(api, 'lab');
    poolId = (await createPool(api, 'lab', 'runners')).id;
    ({ browser, page, cspViolations } = await launchChromium());
    await signIn(page, daemon.url, ADMIN.username, ADMIN.password);
    await page.locator('.topbar .who', { hasText: ADMIN.username }).waitFor();
  });
  afterEach(() => {
    expect(cspViolations).toEqual([]);
  });
  afterAll(async () => {
    for (const a of agents) if (a.exitCode === null && a.pid) process.kill(-a.pid, 'SIGKILL');
    await browser?.close();
    await daemon?.stop();
  });

  const poolPage = () => page.goto(`${daemon.url}/ui/agent-pools/lab/${poolId}`);
  const agentsOfPool = async () =>
    (await api.get(`/api/v2/agent-pools/${poolId}/agents`)).json.data as Array<{
      id: string;
      attributes: { name: string; status: string };
    }>;

  it('shows the agent command with a new token; the command starts an agent whose status and last-seen time show live', async () => {
    await poolPage();
    await page.getByRole('form', { name: 'New agent token' }).getByLabel('Description').fill('rack tokens');
    await page.getByRole('button', { name: 'Create token' }).click();
    const secret = (await page.getByLabel('agent token', { exact: true }).textContent()) ?? '';
    const command = (await page.getByLabel('boxyard agent command', { exact: true }).textContent()) ?? '';
    expect(secret.length).toBeGreaterThan(20);
    // Plain HTTP: no trust step; the agent program comes from the daemon, then runs with the token.
    expect(command).toBe(
      `curl -fsS -o boxyard-agent.mjs ${daemon.url}/boxyard-agent.mjs\nnode boxyard-agent.mjs agent --url ${daemon.url} --token ${secret}`,
    );

    // Run exactly what the page shows (with a name), in an empty folder: the agent registers and the page polls it in.
    const pasted = spawn('bash', ['-c', `${command} --name rack-1`], {
      cwd: mkdtempSync(join(tmpdir(), 'boxyard-agent-home-')),
      env: { PATH: process.env.PATH },
      stdio: 'ignore',
      // A process group of its own: the agent is bash's child, and stopping the group stops it.
      detached: true,
    });
    agents.push(pasted);
    const row = page.getByRole('row', { name: /rack-1/ });
    await row.getByText('idle', { exact: true }).waitFor();
    const seen = row.locator('time');
    const [rack] = (await agentsOfPool()).filter((a) => a.attributes.name === 'rack-1');
    const lastPing = async () => (await api.get(`/api/v2/agents/${rack.id}`)).json.data.attributes['last-ping-at'];
    // The page shows the last ping it polled: the same as the API's, once a poll has passed a report.
    await expect.poll(async () => (await seen.getAttribute('datetime')) === (await lastPing())).toBe(true);
    const first = (await seen.textContent()) ?? '';
    expect(first).toMatch(/now|seconds? ago/);
    // It counts on by itself between polls and reports.
    await expect.poll(async () => seen.textContent(), { timeout: 15_000 }).not.toBe(first);
    expect(await seen.textContent()).toMatch(/now|seconds? ago/);
    await page.getByRole('button', { name: 'Hide the command' }).click();
    await page.getByLabel('boxyard agent command', { exact: true }).waitFor({ state: 'detached' });
    await page.screenshot({ path: join(shots, 'pool-agents.png'), fullPage: true });
  });

  it('hides exited agents on request, shows them again, and deletes an exited one', async () => {
    process.kill(-(agents[0].pid ?? 0), 'SIGTERM');
    const row = page.getByRole('row', { name: /rack-1/ });
    await row.getByText('exited', { exact: true }).waitFor();

    const hide = page.getByLabel('Hide exited agents');
    expect(await hide.isChecked()).toBe(false);
    await hide.check();
    await row.waitFor({ state: 'detached' });
    await page.getByText('1 exited agent is hidden.').waitFor();
    await hide.uncheck();
    await row.getByText('exited', { exact: true }).waitFor();

    const [exited] = (await agentsOfPool()).filter((a) => a.attributes.name === 'rack-1');
    await row.getByRole('button', { name: 'Delete agent rack-1' }).click();
    await row.waitFor({ state: 'detached' });
    expect((await api.get(`/api/v2/agents/${exited.id}`)).status).toBe(404);
  });

  it('renames the pool, and the name stays after a reload', async () => {
    await page.getByRole('button', { name: 'Rename' }).click();
    // The same name field as a new pool's: its rule under it, a name that breaks it refused beside it.
    const rename = page.getByRole('form', { name: 'Rename pool' });
    await rename.getByText(/^Up to 90 letters, numbers, "-" and "_"/).waitFor();
    await page.getByLabel('New name').fill('build ers');
    await page.getByRole('button', { name: 'Save name' }).click();
    await fieldIssue(rename, 'New name').getByText('Name may contain only letters, numbers, "-" and "_"').waitFor();
    expect((await api.get(`/api/v2/agent-pools/${poolId}`)).json.data.attributes.name).toBe('runners');
    await page.getByLabel('New name').fill('builders');
    await page.getByRole('button', { name: 'Save name' }).click();
    await page.getByRole('heading', { name: 'lab / builders' }).waitFor();
    expect((await api.get(`/api/v2/agent-pools/${poolId}`)).json.data.attributes.name).toBe('builders');
    await page.reload();
    await page.getByRole('heading', { name: 'lab / builders' }).waitFor();
  });

  it('names the workspaces that run on the pool and may use it', async () => {
    const web = await createWorkspace(api, 'lab', 'web');
    const db = await createWorkspace(api, 'lab', 'db');
    await createWorkspace(api, 'lab', 'elsewhere');
    const scoped = await api.patch(
      `/api/v2/agent-pools/${poolId}`,
      doc(
        'agent-pools',
        { 'organization-scoped': false },
        { 'allowed-workspaces': refs('workspaces', [web.id, db.id]) },
      ),
    );
    expect(scoped.status, scoped.text).toBe(200);
    expect(
      (
        await api.patch(
          `/api/v2/workspaces/${web.id}`,
          doc('workspaces', { 'execution-mode': 'agent', 'agent-pool-id': poolId }),
        )
      ).status,
    ).toBe(200);
    await poolPage();
    const facts = page.getByLabel('Workspaces of this pool');
    await facts.getByText('web, db').waitFor();
    expect(await facts.locator('dt').allTextContents()).toEqual(['Runs', 'May use it']);
    expect(await facts.locator('dd').allTextContents()).toEqual(['web', 'web, db']);
  });

  it("shows each pool's agents per status in the list, from one request for the whole list", async () => {
    await api.patch('/api/v2/organizations/lab', doc('organizations', { 'agent-pool-limit': 3 }));
    await createPool(api, 'lab', 'spare');
    const agentHttp = daemon.http.withToken((await createAgentToken(api, poolId)).token);
    const register = async (name: string) =>
      (await agentHttp.post('/api/agent/register', { name })).json.agent.id as string;
    await register('a-idle');
    expect(
      (await agentHttp.post(`/api/agent/agents/${await register('a-busy')}/status`, { status: 'busy' })).status,
    ).toBe(200);
    expect(
      (await agentHttp.post(`/api/agent/agents/${await register('a-exit')}/status`, { status: 'exited' })).status,
    ).toBe(200);

    const calls: string[] = [];
    page.on('request', (r) => {
      const u = new URL(r.url());
      if (u.pathname.startsWith('/api/')) calls.push(u.pathname + u.search);
    });
    await page.goto(`${daemon.url}/ui/agent-pools/lab`);
    const counts = page.getByRole('list', { name: 'Agents of builders' });
    for (const text of ['1 idle', '1 busy', '1 exited']) await counts.getByText(text, { exact: true }).waitFor();
    expect(await counts.getByRole('listitem').count()).toBe(3);
    await page.getByRole('row', { name: /spare/ }).getByText('no agents').waitFor();
    page.removeAllListeners('request');
    const countCalls = calls.filter((c) => c.includes('/agent-status-counts'));
    expect(countCalls.length).toBeGreaterThanOrEqual(1);
    expect(decodeURIComponent(countCalls[0])).toContain(poolId);
    expect(calls.filter((c) => c.startsWith('/api/v2/agent-pools/'))).toEqual([]);
    await page.screenshot({ path: join(shots, 'pools.png'), fullPage: true });
  });

  it("answers a pool over the organization's limit with a control that raises it, not the API's text", async () => {
    // An owner who allowed one pool (the default allows a lab 100).
    await createOrg(api, 'tight', { 'agent-pool-limit': 1 });
    await createPool(api, 'tight', 'only');
    await page.goto(`${daemon.url}/ui/agent-pools/tight`);
    await page.getByLabel('Pool name').fill('second');
    await page.getByRole('button', { name: 'Create pool' }).click();
    const note = page.getByRole('alert').filter({ hasText: 'its limit' });
    await note.getByText('tight already has 1 agent pool, its limit.').waitFor();
    expect(await page.locator('body').textContent()).not.toContain('PATCH /api/v2');
    await note.getByRole('link', { name: 'Organization settings' }).waitFor();
    await page.screenshot({ path: join(shots, 'pool-limit.png'), fullPage: true });
    await note.getByRole('button', { name: 'Raise the limit to 2 and create the pool' }).click();
    await page.getByRole('link', { name: 'second' }).waitFor();
    expect((await api.get('/api/v2/organizations/tight')).json.data.attributes['agent-pool-limit']).toBe(2);
    expect(
      (await api.get('/api/v2/organizations/tight/agent-pools')).json.data
        .map((p: { attributes: { name: string } }) => p.attributes.name)
        .sort(),
    ).toEqual(['only', 'second']);
  });

  it("shows the organization's agent-pool limit and defaults, and an owner changes them", async () => {
    await page.goto(`${daemon.url}/ui/organizations/tight`);
    const limit = page.getByLabel('Agent-pool limit');
    await expect.poll(() => limit.inputValue()).toBe('2');
    expect(await page.getByLabel('Default execution mode').inputValue()).toBe('remote');
    expect(await page.getByLabel('Default agent pool').isDisabled()).toBe(true);
    await page.getByText('tight has 2 of at most 2 agent pools.').waitFor();

    await limit.fill('4');
    await page.getByLabel('Default execution mode').selectOption('agent');
    await page.getByLabel('Default agent pool').selectOption({ label: 'second' });
    await page.getByRole('button', { name: 'Save agent settings' }).click();
    const second = (await api.get('/api/v2/organizations/tight/agent-pools?q=second')).json.data[0].id as string;
    await expect
      .poll(async () => (await api.get('/api/v2/organizations/tight')).json.data)
      .toMatchObject({
        attributes: { 'agent-pool-limit': 4, 'default-execution-mode': 'agent' },
        relationships: { 'default-agent-pool': { data: { type: 'agent-pools', id: second } } },
      });
    await page.reload();
    await expect.poll(() => page.getByLabel('Agent-pool limit').inputValue()).toBe('4');
    // The pool list arrives by its own request; until then the select has only "none".
    await expect.poll(() => page.getByLabel('Default agent pool').inputValue()).toBe(second);
    await page.screenshot({ path: join(shots, 'organization.png'), fullPage: true });
  });
});
