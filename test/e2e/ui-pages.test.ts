import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startTestDaemon, type TestDaemon } from '../helpers/daemon';
import { createBox, publish } from '../helpers/registry';
import { createAgentToken, createOrg, createPool, createWorkspace, JSONAPI } from '../helpers/agents';
import type { HttpClient } from '../helpers/http';
import { mirrorOnce, publishHosted, waitForJob } from '../helpers/mirror';
import { rawGet } from '../helpers/upload';
import {
  axeFindings,
  chromiumAvailable,
  ensureUiBuilt,
  launchChromium,
  SCREENSHOTS,
  signIn,
  watchCsp,
  watchErrors,
} from '../helpers/ui-browser';
import { overflow, smallTargets, tableProblems } from '../helpers/ui-page-checks';

// Every page of the UI, as a visitor and as the administrator, at a desktop and a phone size: no
// console error, no axe-core finding of any severity, no horizontal scroll, on a phone no tap target
// under 44 px high and every table a list of cards with no cell cut off, and a screenshot of each kept in
// test-artifacts/screenshots (BOXYARD_TEST_ARTIFACTS moves it).

const haveChromium = chromiumAvailable('The page-wide UI test');
const SHOTS = SCREENSHOTS;
const SIZES = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
] as const;

interface PageCase {
  name: string;
  path: string;
  heading: string | RegExp;
  /** The tables the page shows, by name, each with a row at least (so that the phone's checks measure them). */
  tables?: string[];
  /** What a user does first to show the rest of the page (a disclosure's button). */
  open?: (page: Page) => Promise<void>;
}

/**
 * A row in each table of the mirrors and agent pool pages: an upstream (another daemon, holding vendor/base), a
 * mirror of vendor/base into lab run twice (the earlier job in the job history), vendor/base fetched through the
 * pull-through cache, and on the pool an agent token and two agents, one idle and one exited (which offers Delete).
 */
async function seedMirrorsAndAgents(api: HttpClient, daemon: TestDaemon, upstream: TestDaemon, poolId: string) {
  const far = upstream.http.withToken(upstream.adminToken);
  expect((await far.post('/api/boxyard/organizations', { organization: { name: 'vendor' } })).status).toBe(201);
  await publishHosted(far, 'vendor', 'base', '1.0.0', Buffer.alloc(50_000, 7));
  const made = await api.post('/api/boxyard/upstreams', { upstream: { name: 'origin', url: upstream.url } });
  expect(made.status, made.text).toBe(201);
  const upstreamId: string = made.json.upstream.id;
  const { mirrorId } = await mirrorOnce(api, { upstream_id: upstreamId, source: 'vendor/base', target: 'lab/base' });
  await waitForJob(api, (await api.post(`/api/boxyard/mirrors/${mirrorId}/run`)).json.job.id);
  const cache = { settings: { pull_through_upstream_id: upstreamId } };
  expect((await api.put('/api/boxyard/settings', cache)).status).toBe(200);
  const catalog = await daemon.http.get('/vendor/base');
  expect(catalog.status, catalog.text).toBe(200);
  expect((await rawGet(catalog.json.versions[0].providers[0].url)).status).toBe(200);
  const agents = daemon.http.withToken((await createAgentToken(api, poolId, 'lab machines')).token);
  const register = async (name: string) => (await agents.post('/api/agent/register', { name })).json.agent.id;
  await register('runner-1');
  const exited = await register('runner-2');
  expect((await agents.post(`/api/agent/agents/${exited}/status`, { status: 'exited' })).status).toBe(200);
}

// Skipped only off CI without Chromium; under CI=true chromiumAvailable() throws instead.
describe.skipIf(!haveChromium)('every UI page, at 1280 and 390 px wide', () => {
  let daemon: TestDaemon;
  let upstream: TestDaemon;
  let browser: Browser;
  let poolId: string;
  const visitor: PageCase[] = [];
  const admin: PageCase[] = [];

  beforeAll(async () => {
    ensureUiBuilt();
    mkdirSync(SHOTS, { recursive: true });
    [daemon, upstream] = await Promise.all([startTestDaemon(), startTestDaemon()]);
    const api = daemon.http.withToken(daemon.adminToken);
    await createBox(api, ADMIN.username, 'ubuntu-24.04', {
      short: 'A **minimal** Ubuntu with a rather long description that has to wrap on a phone',
    });
    await publish(api, ADMIN.username, 'ubuntu-24.04', '1.0.0', { architecture: 'amd64' });
    await publish(api, ADMIN.username, 'ubuntu-24.04', '1.1.0', { provider: 'libvirt', architecture: 'arm64' });
    await createBox(api, ADMIN.username, 'hidden', { private: true });
    await createOrg(api, 'lab');
    poolId = ((await createPool(api, 'lab', 'builders')) as { id: string }).id;
    // A workspace, so that the organization's page shows its row: the pool select, Save, the Terraform block.
    await createWorkspace(api.withContentType(JSONAPI), 'lab', 'web');
    await seedMirrorsAndAgents(api, daemon, upstream, poolId);
    const showEarlierJobs = async (page: Page) => {
      await page.getByRole('button', { name: 'Show 1 earlier job' }).click();
      await page.getByRole('table', { name: 'Job history' }).waitFor();
    };
    visitor.push(
      { name: 'catalogue', path: '/ui/', heading: /boxes/i, tables: ['Boxes'] },
      // Managing asks for sign-in: the sign-in page is a page too.
      { name: 'sign-in', path: '/ui/settings', heading: /boxyard|sign in/i },
      {
        name: 'box-public',
        path: `/ui/boxes/${ADMIN.username}/ubuntu-24.04`,
        heading: `${ADMIN.username}/ubuntu-24.04`,
        tables: ['Providers of 1.0.0', 'Providers of 1.1.0'],
      },
    );
    admin.push(
      { name: 'overview', path: '/ui/overview', heading: 'Overview', tables: ['Recent activity'] },
      { name: 'boxes', path: '/ui/boxes', heading: 'Boxes', tables: ['Boxes'] },
      {
        name: 'box',
        path: `/ui/boxes/${ADMIN.username}/ubuntu-24.04`,
        heading: `${ADMIN.username}/ubuntu-24.04`,
        tables: ['Providers of 1.0.0', 'Providers of 1.1.0'],
      },
      { name: 'new-box', path: '/ui/boxes/new', heading: /new box/i },
      { name: 'add-box-file', path: '/ui/boxes/add', heading: 'Add a box file' },
      {
        name: 'mirrors',
        path: '/ui/mirrors',
        heading: 'Mirrors',
        tables: ['Upstreams', 'Job history', 'Cached boxes'],
        open: showEarlierJobs,
      },
      { name: 'move', path: '/ui/mirrors/move', heading: 'Move from HCP Vagrant' },
      { name: 'agent-pools', path: '/ui/agent-pools/lab', heading: 'Agent pools', tables: ['Agent pools'] },
      {
        name: 'agent-pool',
        path: `/ui/agent-pools/lab/${poolId}`,
        heading: 'builders',
        tables: ['Agent tokens', 'Agents'],
      },
      { name: 'organizations', path: '/ui/organizations', heading: 'Organizations' },
      { name: 'organization', path: '/ui/organizations/lab', heading: 'lab', tables: ['Members', 'Workspaces'] },
      { name: 'settings', path: '/ui/settings', heading: 'Your account', tables: ['API tokens and sessions'] },
      { name: 'administration', path: '/ui/settings/administration', heading: 'Administration', tables: ['Users'] },
    );
    ({ browser } = await launchChromium());
  });
  afterAll(async () => {
    await browser?.close();
    await Promise.all([daemon?.stop(), upstream?.stop()]);
  });

  /** A context of the given size, signed in or not, that records console errors and CSP refusals. */
  async function open(
    size: (typeof SIZES)[number],
    signedIn: boolean,
  ): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
    const context = await browser.newContext({ viewport: { width: size.width, height: size.height } });
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    const problems = await watchCsp(page);
    watchErrors(page, problems);
    if (signedIn) {
      await signIn(page, daemon.url, ADMIN.username, ADMIN.password);
      await page.locator('.topbar .who', { hasText: ADMIN.username }).waitFor();
    }
    return { context, page, problems };
  }

  /** What is wrong with one page: nothing, or each finding in words. */
  async function findings(
    page: Page,
    problems: string[],
    c: PageCase,
    size: (typeof SIZES)[number],
    who: string,
  ): Promise<string[]> {
    const where = `${who} ${c.path} at ${size.width} px`;
    const found0: string[] = [];
    problems.length = 0;
    try {
      await page.goto(`${daemon.url}${c.path}`);
      await page.getByRole('heading', { level: 1, name: c.heading }).first().waitFor();
      // No "Loading…" left on screen (a hidden one does not count).
      await page
        .getByText(/Loading/)
        .filter({ visible: true })
        .first()
        .waitFor({ state: 'detached' });
    } catch (e) {
      return [`${where}: never showed its heading ${String(c.heading)} (${(e as Error).message.split('\n')[0]})`];
    }
    // Its own title in the tab, and a skip link past the top bar as the keyboard's first stop.
    const title = await page.title();
    if (!/^.+ · Boxyard$/.test(title)) found0.push(`${where}: the page's title is "${title}"`);
    if (!c.path.startsWith('/ui/login') && c.name !== 'sign-in') {
      await page.keyboard.press('Tab');
      const first = await page.evaluate(() => document.activeElement?.textContent ?? '');
      if (first !== 'Skip to the page') found0.push(`${where}: the first Tab stop is "${first}", not the skip link`);
    }
    try {
      await c.open?.(page);
    } catch (e) {
      return [...found0, `${where}: could not show the rest of the page (${(e as Error).message.split('\n')[0]})`];
    }
    const file = join(SHOTS, `${who}-${c.name}-${size.name}.png`);
    await page.screenshot({ path: file, fullPage: true });
    const found: string[] = [...found0];
    if (statSync(file).size < 1000) found.push(`${where}: empty screenshot`);
    const wider = await overflow(page);
    if (wider > 0) found.push(`${where}: ${wider} px wider than the window`);
    for (const f of await axeFindings(page)) found.push(`${where}: ${f}`);
    for (const name of c.tables ?? []) {
      const rows = await page.getByRole('table', { name, exact: true }).locator('tbody tr').count();
      if (rows === 0) found.push(`${where}: no table "${name}" with a row`);
    }
    if (size.name === 'phone') {
      for (const t of await smallTargets(page)) found.push(`${where}: a tap target ${t}`);
      for (const t of await tableProblems(page)) found.push(`${where}: ${t}`);
    }
    for (const p of problems) found.push(`${where}: ${p}`);
    return found;
  }

  for (const size of SIZES) {
    it(`a visitor's pages at ${size.width} px`, async () => {
      const { context, page, problems } = await open(size, false);
      try {
        const found: string[] = [];
        for (const c of visitor) found.push(...(await findings(page, problems, c, size, 'visitor')));
        expect(found).toEqual([]);
      } finally {
        await context.close();
      }
    });

    it(`the administrator's pages at ${size.width} px`, async () => {
      const { context, page, problems } = await open(size, true);
      try {
        const found: string[] = [];
        for (const c of admin) found.push(...(await findings(page, problems, c, size, 'admin')));
        expect(found).toEqual([]);
      } finally {
        await context.close();
      }
    });
  }
});
