import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startTestDaemon, type TestDaemon } from '../helpers/daemon';
import { chromiumAvailable, ensureUiBuilt, launchChromium } from '../helpers/ui-browser';

// The desktop app's first-run welcome in the real UI. Electron's preload exposes `window.boxyard`
// (main/src/preload.ts); Electron cannot run here, so a stand-in bridge with the same contract is
// put in the page before its scripts, and the calls the UI makes on it are recorded.

const haveChromium = chromiumAvailable('The desktop welcome end-to-end test');

/** Runs in the page before the UI: a bridge whose welcome holds `password` until dismissed. */
function fakeBridge(password: string) {
  const w = window as unknown as Record<string, unknown>;
  const calls: unknown[] = [];
  let welcome: unknown = { username: 'admin', password };
  let settings = { lanAccess: false, lanHttps: true, port: 4780 };
  const https = () => settings.lanAccess && settings.lanHttps;
  const info = () => ({
    version: '0.0.0-test',
    dataDir: '/home/lab/.config/Boxyard/data',
    url: location.origin,
    state: 'running',
    lastError: null,
    settings,
    lanUrls: settings.lanAccess ? [`${https() ? 'https' : 'http'}://192.168.1.20:4780`] : [],
    caFingerprint: https() ? '9A:92:FA:00:6F:EB' : null,
  });
  w.bridgeCalls = calls;
  w.boxyard = {
    info: async () => info(),
    saveSettings: async (s: typeof settings) => {
      calls.push(['saveSettings', s]);
      settings = s;
      return info();
    },
    openDataDir: async () => {
      calls.push(['openDataDir']);
    },
    welcome: async () => welcome,
    dismissWelcome: async () => {
      calls.push(['dismissWelcome']);
      welcome = null;
    },
  };
}

// Skipped only off CI without Chromium; under CI=true chromiumAvailable() throws instead.
describe.skipIf(!haveChromium)('desktop welcome screen in headless Chromium', () => {
  let daemon: TestDaemon;
  let browser: Browser;
  let page: Page;
  let cspViolations: string[];

  beforeAll(async () => {
    ensureUiBuilt();
    daemon = await startTestDaemon();
    ({ browser, page, cspViolations } = await launchChromium());
    await page.addInitScript(fakeBridge, ADMIN.password);
  });
  afterAll(async () => {
    await browser?.close();
    await daemon?.stop();
  });

  it('shows the generated password before sign-in, turns on the LAN, and goes away once dismissed', async () => {
    await page.goto(`${daemon.url}/ui/`);
    const welcome = page.getByRole('region', { name: 'Welcome to Boxyard' });
    await welcome.waitFor();
    await expect(welcome.getByLabel('Administrator password').textContent()).resolves.toBe(ADMIN.password);
    await welcome.getByText('Turn on the local network to give colleagues a URL').waitFor();

    await welcome.getByLabel(/Serve the local network/).check();
    await welcome.getByLabel('URL for colleagues').waitFor();
    await expect(welcome.getByLabel('URL for colleagues').textContent()).resolves.toBe('https://192.168.1.20:4780');
    // Over HTTPS by default: the CA fingerprint colleagues check is shown with it.
    await expect(welcome.getByLabel(/CA fingerprint/).textContent()).resolves.toBe('9A:92:FA:00:6F:EB');
    await welcome.getByRole('button', { name: 'Open the data folder' }).click();

    await welcome.getByRole('button', { name: 'I have saved the password' }).click();
    await welcome.waitFor({ state: 'detached' });
    expect(await page.evaluate(() => (window as unknown as { bridgeCalls: unknown[] }).bridgeCalls)).toEqual([
      ['saveSettings', { lanAccess: true, lanHttps: true, port: 4780 }],
      ['openDataDir'],
      ['dismissWelcome'],
    ]);
    // The password it showed signs in (the UI opens on the public catalogue, with a "Sign in" link).
    await page.getByRole('link', { name: 'Sign in' }).click();
    await page.getByLabel('Username or e-mail').fill(ADMIN.username);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('.topbar .who', { hasText: ADMIN.username }).waitFor();

    // Settings: the HTTPS switch (on with LAN access), and switching it off saves it.
    // Within the app (a page load would start a new bridge with its first settings).
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('link', { name: 'Administration', exact: true }).click();
    const desktop = page.locator('section.card', { has: page.getByRole('heading', { name: 'Desktop app' }) });
    const httpsSwitch = desktop.getByLabel(/Over HTTPS \(recommended/);
    await httpsSwitch.waitFor();
    expect(await httpsSwitch.isChecked()).toBe(true);
    await expect(desktop.getByLabel(/CA fingerprint/).textContent()).resolves.toBe('9A:92:FA:00:6F:EB');
    // Your own certificate instead of the CA: both files, saved as given.
    await desktop.getByLabel('Your own certificate (optional)').fill('/etc/ssl/boxyard/fullchain.pem');
    await desktop.getByLabel('Its key').fill('/etc/ssl/boxyard/privkey.pem');
    await desktop.getByRole('button', { name: 'Save and restart the daemon' }).click();
    await expect
      .poll(async () =>
        (await page.evaluate(() => (window as unknown as { bridgeCalls: unknown[] }).bridgeCalls)).at(-1),
      )
      .toEqual([
        'saveSettings',
        {
          lanAccess: true,
          lanHttps: true,
          port: 4780,
          tlsCert: '/etc/ssl/boxyard/fullchain.pem',
          tlsKey: '/etc/ssl/boxyard/privkey.pem',
        },
      ]);
    await httpsSwitch.uncheck();
    await desktop.getByRole('button', { name: 'Save and restart the daemon' }).click();
    await desktop.getByLabel(/CA fingerprint/).waitFor({ state: 'detached' });
    expect((await page.evaluate(() => (window as unknown as { bridgeCalls: unknown[] }).bridgeCalls)).at(-1)).toEqual([
      'saveSettings',
      {
        lanAccess: true,
        lanHttps: false,
        port: 4780,
        tlsCert: '/etc/ssl/boxyard/fullchain.pem',
        tlsKey: '/etc/ssl/boxyard/privkey.pem',
      },
    ]);
    expect(cspViolations).toEqual([]);
  });

  it('is absent in a plain browser (no desktop bridge)', async () => {
    const plain = await browser.newPage();
    await plain.goto(`${daemon.url}/ui/`);
    await plain.getByRole('heading', { name: 'Boxes' }).waitFor();
    expect(await plain.getByRole('region', { name: 'Welcome to Boxyard' }).count()).toBe(0);
    await plain.close();
  });
});
