import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient } from '../helpers/http';
import { publishHosted } from '../helpers/mirror';
import { chromiumAvailable, ensureUiBuilt, launchChromium, signIn, watchCsp } from '../helpers/ui-browser';

// The web UI in the browser: the overview (counts, the LAN URL to copy), the maintenance banner and
// an administrator switching maintenance off from the UI while it is on, the token list marking
// this browser's session, a session revoked elsewhere ending with a notice, and changing one's
// password.

const haveChromium = chromiumAvailable('The overview and sessions browser test');
const PUBLIC_URL = 'http://boxes.lab.example:4780';

// Skipped only off CI without Chromium; under CI=true chromiumAvailable() throws instead.
describe.skipIf(!haveChromium)('overview, maintenance and sessions in headless Chromium', () => {
  let daemon: TestDaemon;
  let admin: HttpClient;
  let browser: Browser;
  let page: Page;
  let cspViolations: string[] = [];
  const otherPagesCsp: string[][] = [];

  /** Another browser profile (its own cookies): a second person, or the same one elsewhere. */
  const freshPage = async (): Promise<Page> => {
    const p = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    p.context().setDefaultTimeout(15_000);
    otherPagesCsp.push(await watchCsp(p));
    return p;
  };

  const dataDir = mkdtempSync(join(tmpdir(), 'boxyard-ui-overview-'));

  beforeAll(async () => {
    ensureUiBuilt();
    // A box with an uploaded file first; then the same data folder served with a public URL, which
    // stands for the address colleagues use (the test daemon listens on 127.0.0.1 only, and upload
    // URLs would point at the public one).
    const seed = await startTestDaemon({ dataDir });
    await publishHosted(seed.http.withToken(seed.adminToken), ADMIN.username, 'web', '1.0.0', Buffer.alloc(30_000, 1));
    await seed.stop();
    daemon = await startTestDaemon({ dataDir, config: { publicUrl: PUBLIC_URL } });
    admin = daemon.http.withToken(daemon.adminToken);
    ({ browser, page, cspViolations } = await launchChromium());
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: daemon.url });
  });
  afterEach(() => {
    expect([cspViolations, ...otherPagesCsp].flat()).toEqual([]);
  });
  afterAll(async () => {
    await admin?.put('/api/boxyard/settings', { settings: { maintenance: false } });
    await browser?.close();
    await daemon?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('signed in, / opens the overview: counts, recent activity, and the LAN URL with a Copy button', async () => {
    await signIn(page, daemon.url, ADMIN.username, ADMIN.password, '/');
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/ui/overview');
    const stat = (label: string) =>
      page
        .locator('.stat', { has: page.locator('.stat-label', { hasText: new RegExp(`^${label}$`) }) })
        .locator('.stat-value');
    expect(await stat('boxes').textContent()).toBe('1');
    expect(await stat('versions').textContent()).toBe('1');
    expect(await stat('files').textContent()).toBe('1');
    expect(await stat('box files stored').textContent()).toBe('29.3 KiB');
    await page
      .getByRole('cell', { name: `Uploaded virtualbox amd64 (29.3 KiB) to ${ADMIN.username}/web 1.0.0` })
      .waitFor();
    await page.getByRole('cell', { name: `Released ${ADMIN.username}/web 1.0.0` }).waitFor();

    expect(await page.getByLabel('LAN URL').textContent()).toBe(PUBLIC_URL);
    await page
      .locator('.copy-field', { has: page.getByLabel('LAN URL') })
      .getByRole('button', { name: 'Copy' })
      .click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(PUBLIC_URL);
  });

  it("the token list marks this browser's session and offers to sign out there, not Revoke", async () => {
    await page.getByRole('link', { name: 'Settings' }).click();
    const mine = page.locator('tr[aria-current="true"]');
    await mine.waitFor();
    expect(await mine.locator('td').first().textContent()).toMatch(/^Boxyard web UI — Chrome on Linux/);
    await mine.getByText('this session', { exact: true }).waitFor();
    expect(await mine.getByRole('button').allTextContents()).toEqual(['Sign out this browser']);
    // The API token the test signed in with is listed too, with Revoke, and is not marked.
    await page
      .locator('tr:not([aria-current])', { has: page.getByRole('button', { name: 'Revoke' }) })
      .first()
      .waitFor();
  });

  it('a session revoked elsewhere ends here with a notice, and the next sign-in clears it', async () => {
    const sessions = (await admin.get('/api/boxyard/tokens')).json.tokens.filter(
      (t: { session: boolean }) => t.session,
    );
    expect(sessions).toHaveLength(1);
    expect((await admin.delete(`/api/boxyard/tokens/${sessions[0].id}`)).status).toBe(204);
    // The page learns it with its next request.
    await page.getByRole('link', { name: 'Mirrors' }).click();
    await page.getByText('Your session has ended — sign in again.').waitFor();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/ui/login');

    await page.getByLabel('Username or e-mail').fill(ADMIN.username);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Mirrors', level: 1 }).waitFor();
    expect(await page.getByText('Your session has ended').count()).toBe(0);
  });

  it("changing one's password: a wrong current one is said beside it; then the old password stops working", async () => {
    await daemon.user('carol');
    const carol = await freshPage();
    await signIn(carol, daemon.url, 'carol', 'carol-password', '/settings');
    const form = carol.getByRole('form', { name: 'Change password' });
    // The new password's rule shows before typing; a short one is refused beside it, before anything is sent.
    await form.getByText(/^At least 12 characters/).waitFor();
    await form.getByLabel('Current password').fill('not-my-password');
    await form.getByLabel('New password').fill('short');
    await form.getByRole('button', { name: 'Change password' }).click();
    const beside = (label: string) => form.locator('.field', { has: carol.getByLabel(label) }).getByRole('alert');
    await beside('New password').getByText('Must be at least 12 characters').waitFor();
    await form.getByLabel('New password').fill('carols-new-password');
    await form.getByRole('button', { name: 'Change password' }).click();
    await beside('Current password')
      .getByText('Your current password (or a code from your two-factor app) is missing or wrong: nothing was changed.')
      .waitFor();
    expect(await form.textContent()).not.toMatch(/current_password/);

    await form.getByLabel('Current password').fill('carol-password');
    await form.getByLabel('New password').fill('carols-new-password');
    await form.getByRole('button', { name: 'Change password' }).click();
    await form.getByText(/^Password changed\./).waitFor();
    const login = (password: string) =>
      daemon.http.post('/api/v1/authenticate', { user: { login: 'carol', password } });
    expect((await login('carol-password')).status).toBe(401);
    expect((await login('carols-new-password')).status).toBe(200);
    // This session stays signed in.
    await carol.reload();
    await carol.getByRole('form', { name: 'Change password' }).waitFor();
    await carol.context().close();
  });

  it('in maintenance mode everyone sees a banner and why the boxes list is empty; an administrator switches it off from the UI', async () => {
    expect((await admin.put('/api/boxyard/settings', { settings: { maintenance: true } })).status).toBe(200);
    const visitor = await freshPage();
    await visitor.goto(`${daemon.url}/ui/boxes`);
    await visitor.getByText('Maintenance mode.', { exact: true }).waitFor();
    await visitor.getByText('Boxyard is in maintenance mode. Try again later.').waitFor();
    await visitor.context().close();

    const adminPage = await freshPage();
    await signIn(adminPage, daemon.url, ADMIN.username, ADMIN.password, '/boxes');
    await adminPage.getByText('Maintenance mode.', { exact: true }).waitFor();
    await adminPage.getByRole('link', { name: 'Switch it off in Settings' }).click();
    await adminPage.getByRole('button', { name: 'Switch maintenance off' }).click();
    await adminPage.getByRole('button', { name: 'Switch maintenance on' }).waitFor();
    await adminPage.getByText('Maintenance mode.', { exact: true }).waitFor({ state: 'detached' });
    expect((await admin.get('/api/boxyard/settings')).json.settings.maintenance).toBe(false);
    await adminPage.getByRole('link', { name: 'Boxes' }).click();
    await adminPage.getByRole('link', { name: `${ADMIN.username}/web` }).waitFor();
    await adminPage.context().close();
  });
});
