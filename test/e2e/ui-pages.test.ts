import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startTestDaemon, type TestDaemon } from '../helpers/daemon';
import { createBox, publish } from '../helpers/registry';
import { createOrg, createPool, createWorkspace, JSONAPI } from '../helpers/agents';
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

// Every page of the UI, as a visitor and as the administrator, at a desktop and a phone size: no
// console error, no axe-core finding of any severity, no horizontal scroll, on a phone no tap target
// under 44 px high, and a screenshot of each kept in test-artifacts/screenshots (BOXYARD_TEST_ARTIFACTS moves it).

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
}

/** WCAG 2.5.5's size for a tap target, in CSS pixels: the phone pages hold every target to it. */
const TAP_TARGET_PX = 44;

/**
 * The tap targets on the page lower than TAP_TARGET_PX: every visible button, field, select, disclosure (a details'
 * summary) and link, except a link
 * inside running text (WCAG's "inline" exception). A link is in running text when the block it stands in (its nearest
 * ancestor that is not laid out inline) holds words of its own beside the link's: a link in a sentence, a note, a
 * checklist's line. A link alone in its block (a table cell, a list of links, the top bar, tabs) is a target of its
 * own. A checkbox or radio button is as large as its label, which a tap on it also toggles.
 */
const smallTargets = (page: Page) =>
  page.evaluate((min) => {
    const inRunningText = (a: Element): boolean => {
      let block = a.parentElement;
      while (block && getComputedStyle(block).display.startsWith('inline')) block = block.parentElement;
      if (!block) return false;
      const own = (a.textContent ?? '').replace(/\s+/g, '');
      return (block.textContent ?? '').replace(/\s+/g, '').length > own.length;
    };
    const found: string[] = [];
    for (const el of document.querySelectorAll('a[href], button, input, select, textarea, summary')) {
      if (!(el as HTMLElement).checkVisibility({ visibilityProperty: true, opacityProperty: true })) continue;
      const box = el.getBoundingClientRect();
      if (box.width === 0 || box.height === 0) continue;
      if (el.tagName === 'A' && inRunningText(el)) continue;
      const toggle = el.matches('input[type=checkbox], input[type=radio]');
      const label = toggle ? el.closest('label') : null;
      const height = (label ?? el).getBoundingClientRect().height;
      if (Math.round(height) < min) {
        const words = el.getAttribute('aria-label') ?? (label ?? el).textContent ?? '';
        const name = (words.trim() || el.getAttribute('name')) ?? '';
        found.push(
          `${el.tagName.toLowerCase()}${toggle ? ` ${(el as HTMLInputElement).type}` : ''} "${name.slice(0, 40)}" is ${Math.round(height)} px high`,
        );
      }
    }
    return found;
  }, TAP_TARGET_PX);

/** How far the page is wider than the window, in CSS pixels (0 when it fits). */
const overflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

// Skipped only off CI without Chromium; under CI=true chromiumAvailable() throws instead.
describe.skipIf(!haveChromium)('every UI page, at 1280 and 390 px wide', () => {
  let daemon: TestDaemon;
  let browser: Browser;
  let poolId: string;
  const visitor: PageCase[] = [];
  const admin: PageCase[] = [];

  beforeAll(async () => {
    ensureUiBuilt();
    mkdirSync(SHOTS, { recursive: true });
    daemon = await startTestDaemon();
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
    visitor.push(
      { name: 'catalogue', path: '/ui/', heading: /boxes/i },
      // Managing asks for sign-in: the sign-in page is a page too.
      { name: 'sign-in', path: '/ui/settings', heading: /boxyard|sign in/i },
      {
        name: 'box-public',
        path: `/ui/boxes/${ADMIN.username}/ubuntu-24.04`,
        heading: `${ADMIN.username}/ubuntu-24.04`,
      },
    );
    admin.push(
      { name: 'overview', path: '/ui/overview', heading: 'Overview' },
      { name: 'boxes', path: '/ui/boxes', heading: 'Boxes' },
      { name: 'box', path: `/ui/boxes/${ADMIN.username}/ubuntu-24.04`, heading: `${ADMIN.username}/ubuntu-24.04` },
      { name: 'new-box', path: '/ui/boxes/new', heading: /new box/i },
      { name: 'add-box-file', path: '/ui/boxes/add', heading: 'Add a box file' },
      { name: 'mirrors', path: '/ui/mirrors', heading: 'Mirrors' },
      { name: 'move', path: '/ui/mirrors/move', heading: 'Move from HCP Vagrant' },
      { name: 'agent-pools', path: '/ui/agent-pools/lab', heading: 'Agent pools' },
      { name: 'agent-pool', path: `/ui/agent-pools/lab/${poolId}`, heading: 'builders' },
      { name: 'organizations', path: '/ui/organizations', heading: 'Organizations' },
      { name: 'organization', path: '/ui/organizations/lab', heading: 'lab' },
      { name: 'settings', path: '/ui/settings', heading: 'Your account' },
      { name: 'administration', path: '/ui/settings/administration', heading: 'Administration' },
    );
    ({ browser } = await launchChromium());
  });
  afterAll(async () => {
    await browser?.close();
    await daemon?.stop();
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
    const file = join(SHOTS, `${who}-${c.name}-${size.name}.png`);
    await page.screenshot({ path: file, fullPage: true });
    const found: string[] = [...found0];
    if (statSync(file).size < 1000) found.push(`${where}: empty screenshot`);
    const wider = await overflow(page);
    if (wider > 0) found.push(`${where}: ${wider} px wider than the window`);
    for (const f of await axeFindings(page)) found.push(`${where}: ${f}`);
    if (size.name === 'phone') for (const t of await smallTargets(page)) found.push(`${where}: a tap target ${t}`);
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
