import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startTestDaemon, type TestDaemon } from '../helpers/daemon';
import { createBox, publish } from '../helpers/registry';
import { seedBoxes } from '../helpers/seed-boxes';
import { chromiumAvailable, ensureUiBuilt, launchChromium } from '../helpers/ui-browser';

const haveChromium = chromiumAvailable('The public catalogue browser test');
const INDEX_HTML = fileURLToPath(new URL('../../renderer/dist/index.html', import.meta.url));

/** The boxes the list shows, top to bottom. */
const shownTags = (page: Page) =>
  page.getByRole('table', { name: 'Boxes' }).locator('tbody tr td:first-child a').allTextContents();

// The catalogue a LAN colleague sees without an account: public boxes and their pages,
// the catalog URL in a browser, and a boxes list that stays one request per page at 10,000 boxes.
// Skipped only off CI without Chromium; under CI=true chromiumAvailable() throws instead.
describe.skipIf(!haveChromium)('the public catalogue in headless Chromium', () => {
  let daemon: TestDaemon;
  let browser: Browser;
  let page: Page;
  let cspViolations: string[] = [];

  beforeAll(async () => {
    ensureUiBuilt();
    daemon = await startTestDaemon();
    const alice = (await daemon.user('alice')).http;
    await createBox(alice, 'alice', 'web', { short: 'A public web server' });
    await publish(alice, 'alice', 'web', '1.0.0');
    await createBox(alice, 'alice', 'secret', { private: true, short: 'Not for visitors' });
    await publish(alice, 'alice', 'secret', '1.0.0');
    await createBox(alice, 'alice', 'draft', { short: 'Not released yet' });
    ({ browser, page, cspViolations } = await launchChromium());
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: daemon.url });
  });
  afterEach(() => {
    expect(cspViolations).toEqual([]);
  });
  afterAll(async () => {
    await browser?.close();
    await daemon?.stop();
  });

  it('shows a visitor the public released boxes, and neither private nor unreleased ones', async () => {
    await page.goto(`${daemon.url}/`);
    await page.getByRole('heading', { name: 'Boxes' }).waitFor();
    await page.getByRole('link', { name: 'alice/web' }).waitFor();
    expect(await shownTags(page)).toEqual(['alice/web']);
    // Nothing to manage: a "Sign in" link instead of the management pages.
    await page.getByRole('link', { name: 'Sign in' }).waitFor();
    expect(await page.getByRole('link', { name: 'New box' }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Settings' }).count()).toBe(0);
    const search = page.getByRole('searchbox', { name: 'Search boxes' });
    await search.fill('secret');
    await search.press('Enter');
    await page.getByText('No boxes match “secret”.').waitFor();
  });

  it('opens a box page and copies the vagrant box add command', async () => {
    await page.goto(`${daemon.url}/ui/boxes`);
    await page.getByRole('link', { name: 'alice/web' }).click();
    await page.getByRole('heading', { name: 'alice/web' }).waitFor();
    const command = `VAGRANT_SERVER_URL=${daemon.url} vagrant box add alice/web`;
    expect(await page.getByLabel('vagrant box add', { exact: true }).textContent()).toBe(command);
    await page
      .getByLabel('vagrant box add', { exact: true })
      .locator('..')
      .getByRole('button', { name: 'Copy' })
      .click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(command);
  });

  it('asks for sign-in to manage, then comes back to the page asked for', async () => {
    await page.goto(`${daemon.url}/ui/settings`);
    await page.getByLabel('Username or e-mail').fill(ADMIN.username);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('.topbar .who', { hasText: ADMIN.username }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/ui/settings');
    await page.locator('.topbar').getByRole('button', { name: 'Sign out' }).click();
    // Settings needs a session: signed out, the page asks for sign-in again.
    await page.getByLabel('Username or e-mail').waitFor();
  });

  it('shows a signed-in user their own boxes, unreleased ones too, under Mine', async () => {
    await page.goto(`${daemon.url}/ui/login?next=${encodeURIComponent('/boxes?view=mine')}`);
    await page.getByLabel('Username or e-mail').fill('alice');
    await page.getByLabel('Password').fill('alice-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => shownTags(page)).toEqual(['alice/draft', 'alice/secret', 'alice/web']);
    expect(await page.getByRole('link', { name: 'Mine' }).getAttribute('aria-current')).toBe('page');
    await page.getByRole('table', { name: 'Boxes' }).getByText('unreleased').waitFor();
    await page.getByRole('link', { name: 'All', exact: true }).click();
    await expect.poll(() => shownTags(page)).toEqual(['alice/secret', 'alice/web']);
    await page.locator('.topbar').getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('link', { name: 'Sign in' }).waitFor();
  });

  it('answers a browser at /ORG/BOX with the box page, and everything else with the catalog as before', async () => {
    const res = await page.goto(`${daemon.url}/alice/web`);
    assert(res, 'the browser got no answer for /alice/web');
    expect(res.status()).toBe(200);
    expect(res.headers()['content-type']).toMatch(/^text\/html/);
    expect(res.headers().vary).toMatch(/\bAccept\b/i);
    await page.getByRole('heading', { name: 'alice/web' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/ui/boxes/alice/web');

    // What Chromium sent, replayed: the UI's own page, byte for byte.
    const accept = (await res.request().allHeaders()).accept;
    expect(accept).toMatch(/^text\/html,/);
    const html = await fetch(`${daemon.url}/alice/web`, { headers: { accept } });
    expect(await html.text()).toBe(readFileSync(INDEX_HTML, 'utf8'));

    // The catalog as vagrant ≥ 2.4 reads it first (/api/v2/vagrant/…, which never negotiates) is the reference.
    const reference = await (
      await fetch(`${daemon.url}/api/v2/vagrant/alice/web`, { headers: { accept: 'application/json' } })
    ).text();
    expect(JSON.parse(reference).name).toBe('alice/web');
    for (const headers of [{ accept: 'application/json' }, { accept: '*/*' }, {} as Record<string, string>]) {
      const r = await fetch(`${daemon.url}/alice/web`, { headers });
      expect(r.headers.get('content-type'), JSON.stringify(headers)).toMatch(/^application\/json/);
      expect(r.headers.get('vary')).toMatch(/\bAccept\b/i);
      expect(await r.text(), JSON.stringify(headers)).toBe(reference);
    }
  });

  it('answers a browser at the URL of a box it may not see with the page, 404', async () => {
    const res = await page.goto(`${daemon.url}/alice/secret`);
    assert(res, 'the browser got no answer for /alice/secret');
    expect(res.status()).toBe(404);
    expect(res.headers()['content-type']).toMatch(/^text\/html/);
    expect(new URL(page.url()).pathname).toBe('/ui/boxes/alice/secret');
  });
});

// Skipped only off CI without Chromium; under CI=true chromiumAvailable() throws instead.
describe.skipIf(!haveChromium)('the boxes list at 10,000 boxes', () => {
  const BOXES = 10_000;
  let dataDir: string;
  let daemon: TestDaemon;
  let browser: Browser;
  let page: Page;
  let cspViolations: string[] = [];
  /** The paths of every API request the page made. */
  const apiRequests: string[] = [];

  beforeAll(async () => {
    ensureUiBuilt();
    dataDir = await seedBoxes(BOXES);
    daemon = await startTestDaemon({ dataDir });
    ({ browser, page, cspViolations } = await launchChromium());
    page.on('request', (r) => {
      const url = new URL(r.url());
      if (url.pathname.startsWith('/api/')) apiRequests.push(url.pathname + url.search);
    });
  }, 120_000);
  afterEach(() => {
    expect(cspViolations).toEqual([]);
  });
  afterAll(async () => {
    await browser?.close();
    await daemon?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const listRequests = () => apiRequests.filter((p) => p.startsWith('/api/boxyard/boxes'));
  const expectedTags = async (query: string) =>
    (await daemon.http.get(`/api/boxyard/boxes?${query}`)).json.boxes.map((b: { tag: string }) => b.tag);

  it('renders its first page from one API request', async () => {
    await page.goto(`${daemon.url}/ui/boxes`);
    await page.getByRole('link', { name: 'Next page' }).waitFor();
    const shown = await shownTags(page);
    expect(shown).toHaveLength(25);
    expect(shown).toEqual(await expectedTags('limit=25'));
    expect(listRequests()).toHaveLength(1);
    // Nothing else lists boxes: no request per namespace, no search besides the one page.
    expect(apiRequests.filter((p) => /^\/api\/(v1|v2)\/(user|search)|\/namespaces/.test(p))).toEqual([]);
  });

  it('pages forward and back with the page in the URL, one request per page', async () => {
    const first = await shownTags(page);
    const second = await expectedTags('limit=25&page=2');
    expect(second.filter((t: string) => first.includes(t))).toEqual([]);
    await page.getByRole('link', { name: 'Next page' }).click();
    // The previous page stays on screen while the next loads: wait for the rows.
    await expect.poll(() => shownTags(page)).toEqual(second);
    expect(new URL(page.url()).search).toBe('?page=2');
    await page.getByText('Page 2').waitFor();
    expect(listRequests()).toHaveLength(2);
    await page.reload();
    await expect.poll(() => shownTags(page)).toEqual(second);
    await page.getByRole('link', { name: 'Previous page' }).click();
    await expect.poll(() => shownTags(page)).toEqual(first);
    expect(new URL(page.url()).search).toBe('');
  });

  it('sorts by name and updated, and filters by architecture', async () => {
    // The previous page stays on screen while the next loads: wait for the rows, not for a link.
    const names = (ids: number[]) => ids.map((i) => `many/box-${String(i).padStart(5, '0')}`);
    await page.getByLabel('Sort by').selectOption('name');
    await expect.poll(() => shownTags(page)).toEqual(names(Array.from({ length: 25 }, (_, i) => i)));
    expect(new URL(page.url()).search).toBe('?sort=name');
    await page.getByLabel('Architecture').selectOption('arm64');
    await expect.poll(() => shownTags(page)).toEqual(names(Array.from({ length: 25 }, (_, i) => 2 * i + 1)));
    expect(new URL(page.url()).search).toBe('?sort=name&architecture=arm64');
    await page.getByLabel('Architecture').selectOption('');
    await page.getByLabel('Sort by').selectOption('updated');
    const updated = await expectedTags('sort=updated&limit=25');
    await expect.poll(() => shownTags(page)).toEqual(updated);
  });
});
