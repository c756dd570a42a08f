import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient } from '../helpers/http';
import { createBox } from '../helpers/registry';
import { publishHosted } from '../helpers/mirror';
import { createAgentToken, createOrg, createPool, JSONAPI } from '../helpers/agents';
import { chromiumAvailable, ensureUiBuilt, launchChromium, SCREENSHOTS, watchErrors } from '../helpers/ui-browser';

// A new administrator's first run in the browser: signing in from the page a visitor first sees lands on the
// overview, whose getting-started checklist starts with every step to do and ticks each one as the daemon comes to
// hold it (each step is done here through the API); an empty Boxes page offers the button to make the first box.

const haveChromium = chromiumAvailable('The first-run browser test');

const STEPS = [
  'Create an organization',
  'Create a box',
  'Upload a .box file',
  'Release a version',
  'Add a user',
  'Create an agent pool',
  'Start an agent',
];

// Skipped only off CI without Chromium; under CI=true chromiumAvailable() throws instead.
describe.skipIf(!haveChromium)('a first run in headless Chromium', () => {
  let daemon: TestDaemon;
  let admin: HttpClient;
  let browser: Browser;
  let page: Page;
  let cspViolations: string[] = [];
  const errors: string[] = [];

  beforeAll(async () => {
    ensureUiBuilt();
    daemon = await startTestDaemon();
    admin = daemon.http.withToken(daemon.adminToken);
    ({ browser, page, cspViolations } = await launchChromium());
    watchErrors(page, errors);
  });
  afterEach(() => {
    expect(cspViolations).toEqual([]);
    expect(errors).toEqual([]);
  });
  afterAll(async () => {
    await browser?.close();
    await daemon?.stop();
  });

  const checklist = () => page.getByRole('list', { name: 'Getting started' });
  /** Each step's link text with its status badge, as the checklist shows them. */
  const steps = async (): Promise<string[]> => {
    await checklist().waitFor();
    const items = await checklist().getByRole('listitem').all();
    return Promise.all(
      items.map(
        async (li) => `${await li.getByRole('link').textContent()}: ${await li.locator('.badge').textContent()}`,
      ),
    );
  };
  /** Reloads the overview (the daemon's state changed behind the page) and reads the checklist. */
  const afterReload = async (): Promise<string[]> => {
    await page.reload();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    return steps();
  };
  /** A screenshot of the whole page for a reviewer, at 1280 px (test/e2e/ui-pages.test.ts takes every page at both). */
  const shoot = (name: string) =>
    page.screenshot({ path: join(SCREENSHOTS, `first-run-${name}-desktop.png`), fullPage: true });
  const expectDone = (shown: string[], done: number) =>
    expect(shown).toEqual(STEPS.map((s, i) => `${s}: ${i < done ? 'done' : 'to do'}`));

  it("signing in from the visitor's first page lands on the overview, with every step to do", async () => {
    await page.goto(`${daemon.url}/ui/`);
    await page.getByRole('heading', { name: 'Boxes', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Sign in' }).click();
    await page.getByLabel('Username or e-mail').fill(ADMIN.username);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/ui/overview');
    expectDone(await steps(), 0);
    await page.getByText('0 of 7 steps done.', { exact: false }).waitFor();
    mkdirSync(SCREENSHOTS, { recursive: true });
    await shoot('overview');
    // Each step links to where it is done.
    expect(await checklist().getByRole('link', { name: 'Create a box' }).getAttribute('href')).toBe('/ui/boxes/new');
    expect(await checklist().getByRole('link', { name: 'Add a user' }).getAttribute('href')).toBe(
      '/ui/settings/administration',
    );
  });

  it('the empty Boxes page says what to do and its button opens the page that adds a box file', async () => {
    await page.getByRole('navigation').getByRole('link', { name: 'Boxes' }).click();
    await page.getByText('No boxes here yet.', { exact: false }).waitFor();
    await shoot('boxes');
    await page.getByRole('link', { name: 'Add your first box file' }).click();
    await page.getByRole('heading', { name: 'Add a box file' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/ui/boxes/add');
    await page.getByRole('navigation').getByRole('link', { name: 'Overview' }).click();
    expectDone(await steps(), 0);
  });

  it('each step ticks itself once the daemon holds it, and the checklist goes away when all are done', async () => {
    const owner = admin.withContentType(JSONAPI);
    await createOrg(owner, 'lab');
    expectDone(await afterReload(), 1);
    await createBox(admin, 'lab', 'debian');
    expectDone(await afterReload(), 2);
    await publishHosted(admin, 'lab', 'debian', '1.0.0', Buffer.alloc(20_000, 7), { release: false });
    expectDone(await afterReload(), 3);
    expect((await admin.put('/api/v2/box/lab/debian/version/1.0.0/release')).status).toBe(200);
    expectDone(await afterReload(), 4);
    await daemon.user('alice');
    expectDone(await afterReload(), 5);
    const pool = await createPool(owner, 'lab', 'builders');
    expectDone(await afterReload(), 6);
    const agent = daemon.http.withToken((await createAgentToken(owner, pool.id)).token);
    expect((await agent.post('/api/agent/register', { name: 'runner-1' })).status).toBe(201);

    await page.reload();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.getByRole('heading', { name: 'Storage and boxes' }).waitFor();
    expect(await page.getByRole('heading', { name: 'Getting started' }).count()).toBe(0);
    // The overview counts the organization, its pool and its agent.
    const stat = (label: string) =>
      page
        .locator('.stat', { has: page.locator('.stat-label', { hasText: new RegExp(`^${label}$`) }) })
        .locator('.stat-value');
    expect(await stat('organizations').textContent()).toBe('1');
    expect(await stat('agent pools').textContent()).toBe('1');
    expect(await stat('agents').textContent()).toBe('1');
    await page.getByText('1 idle', { exact: true }).waitFor();
  });
});
