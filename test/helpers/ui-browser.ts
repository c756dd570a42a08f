import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { expect } from 'vitest';

// The browser pieces the browser tests (test/e2e/ui-*.test.ts, mirror-ui.test.ts) share.

export const CHROMIUM = '/usr/bin/chromium';
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Where the browser tests keep their screenshots, for a reviewer (BOXYARD_TEST_ARTIFACTS moves them). */
export const SCREENSHOTS = join(process.env.BOXYARD_TEST_ARTIFACTS ?? join(ROOT, 'test-artifacts'), 'screenshots');

/** Whether the browser tests run here; in CI (CI=true) a missing Chromium is an error, not a skip. */
export function chromiumAvailable(what: string): boolean {
  const have = existsSync(CHROMIUM);
  if (!have && process.env.CI === 'true') {
    throw new Error(`${what} is mandatory in CI but ${CHROMIUM} is missing: apt-get install -y chromium`);
  }
  return have;
}

/** Newest modification time under a folder (the renderer's sources). */
function newestMtime(dir: string): number {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .reduce((max, e) => Math.max(max, statSync(join(e.parentPath, e.name)).mtimeMs), 0);
}

/** The daemon serves renderer/dist: build it when it is missing or older than the sources. */
export function ensureUiBuilt(): void {
  const index = join(ROOT, 'renderer/dist/index.html');
  // The UI bundles the daemon's wire contract too: a change there needs a new build as well.
  const sources = Math.max(
    newestMtime(join(ROOT, 'renderer/src')),
    newestMtime(join(ROOT, 'daemon/src/contract')),
    statSync(join(ROOT, 'renderer/index.html')).mtimeMs,
  );
  if (existsSync(index) && statSync(index).mtimeMs >= sources) return;
  execFileSync(
    process.execPath,
    [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'renderer/vite.config.ts'],
    {
      cwd: ROOT,
      stdio: 'inherit',
      // vitest sets NODE_ENV=test, which would make vite bundle React's development build.
      env: { ...process.env, NODE_ENV: 'production' },
    },
  );
}

/**
 * Chromium with one page. `cspViolations` collects what the page reports breaking the daemon's
 * Content Security Policy (Chromium logs each "Refused to …" to the console): the UI tests expect
 * none. `args` adds switches (e.g. --host-resolver-rules).
 */
export async function launchChromium(
  args: string[] = [],
): Promise<{ browser: Browser; page: Page; cspViolations: string[] }> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--headless',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      ...args,
    ],
  });
  // A context of its own, so that a test can open more pages in the same browser session (cookies).
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  context.setDefaultTimeout(15_000);
  const page = await context.newPage();
  return { browser, page, cspViolations: await watchCsp(page) };
}

/**
 * What a page reports breaking its Content Security Policy: each `securitypolicyviolation` event
 * (an eval that script catches, as zod's probe for `new Function` does, logs nothing to the
 * console but fires one) and each console line about the policy. Set up before the first page loads.
 */
export async function watchCsp(page: Page): Promise<string[]> {
  const seen: string[] = [];
  await page.exposeFunction('__boxyardCspViolation', (v: string) => {
    seen.push(v);
  });
  await page.addInitScript(() =>
    document.addEventListener('securitypolicyviolation', (e) => {
      (window as unknown as { __boxyardCspViolation(v: string): void }).__boxyardCspViolation(
        `${e.violatedDirective} refused ${e.blockedURI} (${e.sourceFile}:${e.lineNumber})`,
      );
    }),
  );
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) seen.push(m.text());
  });
  return seen;
}

/** Signs in on the UI's sign-in page (`/` shows the public catalogue to a visitor), which then goes to `/`. */
/**
 * Signs in on the sign-in page, which then goes to `next` (the boxes list unless told; without a
 * `next` the UI's first page for a signed-in user is the overview).
 */
/** Adds to `into` each console error and uncaught error the page reports (the UI tests expect none). */
export function watchErrors(page: Page, into: string[]): void {
  page.on('console', (m) => {
    if (m.type() === 'error') into.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => into.push(`page error: ${e.message}`));
}

export async function signIn(page: Page, url: string, login: string, password: string, next = '/boxes'): Promise<void> {
  await page.goto(`${url}/ui/login?next=${encodeURIComponent(next)}`);
  await page.getByLabel('Username or e-mail').fill(login);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/**
 * Records in the page whether an element matching `selector` was ever on screen (fast local work ends before a poll
 * sees it).
 */
export async function watchFor(page: Page, selector: string, flag: string): Promise<void> {
  await page.evaluate(
    ({ selector, flag }) => {
      const w = window as unknown as Record<string, boolean>;
      w[flag] = !!document.querySelector(selector);
      new MutationObserver(() => {
        if (document.querySelector(selector)) w[flag] = true;
      }).observe(document.body, { childList: true, subtree: true, attributes: true });
    },
    { selector, flag },
  );
}

export const sawIt = (page: Page, flag: string): Promise<boolean> =>
  page.evaluate((flag) => (window as unknown as Record<string, boolean>)[flag] === true, flag);

/** What a form says beside the field labelled `label` (form-rules.tsx's Field: the label, the control, the issue). */
export const fieldIssue = (form: Locator, label: string): Locator =>
  form.locator('.field', { has: form.page().getByLabel(label, { exact: true }) }).getByRole('alert');

/** The page speaks to people: none of the API's words for a refusal (its prefix, a body path such as `box.name:`). */
export async function noApiWords(page: Page): Promise<void> {
  expect(await page.locator('main').textContent()).not.toMatch(
    /Invalid request body|data\.attributes|\b(?:box|version|token|organization|user)\.[a-z_]+:/,
  );
}

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown[] }>;
}

/** axe-core's findings on the page as it is now, of every severity (minor ones too), one line each. */
export async function axeFindings(page: Page): Promise<string[]> {
  // Evaluated by the browser's debugging protocol, which the page's Content Security Policy does not govern.
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as { axe: { run(ctx: Document, o: object): Promise<{ violations: AxeViolation[] }> } }
    ).axe;
    return (await axe.run(document, { resultTypes: ['violations'] })).violations;
  });
  return violations.map(
    (v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`,
  );
}
