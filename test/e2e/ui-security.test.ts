import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startTestDaemon, type TestDaemon } from '../helpers/daemon';
import { countRows } from '../helpers/registry';
import { chromiumAvailable, ensureUiBuilt, launchChromium, signIn } from '../helpers/ui-browser';

// In a real browser: what injected script, a page on another origin of the same host, a
// framing page and a DNS-rebound name can do to a signed-in Boxyard UI.

const haveChromium = chromiumAvailable('The UI security end-to-end test');

/** A page on another origin (another port of 127.0.0.1: the same site, so SameSite cookies go along). */
async function attackerSite(daemonUrl: string): Promise<{ url: string; server: Server }> {
  const forged = JSON.stringify({ box: { username: ADMIN.username, name: 'forged', is_private: false } });
  const pages: Record<string, string> = {
    '/fetch': `<script>
      const send = (headers) => fetch(${JSON.stringify(`${daemonUrl}/api/v1/boxes`)}, { method: 'POST', credentials: 'include', headers, body: ${JSON.stringify(forged)} })
        .then((r) => 'status ' + r.status, (e) => 'failed ' + e.name);
      window.results = Promise.all([send({ 'content-type': 'text/plain' }), send({ 'content-type': 'application/json', 'x-boxyard-csrf': '1' })]);
    </script>`,
    '/form': `<form method="POST" action="${daemonUrl}/api/v1/boxes" enctype="text/plain"><input name='${forged.slice(0, -2)}' value='"}}'></form>
      <script>document.forms[0].submit()</script>`,
    '/frame': `<iframe src="${daemonUrl}/ui/"></iframe>`,
  };
  const server = createServer((req, res) => {
    res.setHeader('content-type', 'text/html');
    res.end(`<!doctype html><body>${pages[req.url ?? ''] ?? ''}</body>`);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

// Skipped only off CI without Chromium; under CI=true chromiumAvailable() throws instead.
describe.skipIf(!haveChromium)('web UI security in headless Chromium', () => {
  let daemon: TestDaemon;
  let browser: Browser;
  let page: Page;
  let cspViolations: string[];
  let attacker: { url: string; server: Server };

  beforeAll(async () => {
    ensureUiBuilt();
    daemon = await startTestDaemon();
    attacker = await attackerSite(daemon.url);
    // rebind.test resolves to the daemon's address, as an attacker's name does after DNS rebinding.
    ({ browser, page, cspViolations } = await launchChromium(['--host-resolver-rules=MAP rebind.test 127.0.0.1']));
    await signIn(page, daemon.url, ADMIN.username, ADMIN.password);
    await page.locator('.topbar .who', { hasText: ADMIN.username }).waitFor();
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((r) => attacker?.server.close(r));
    await daemon?.stop();
  });

  it('keeps the session token out of the page: an httpOnly SameSite=Strict cookie, nothing in storage', async () => {
    const [cookie] = await page.context().cookies(daemon.url);
    expect(cookie).toMatchObject({
      name: 'boxyard-session',
      httpOnly: true,
      sameSite: 'Strict',
      path: '/',
      secure: false,
    });
    const seen = await page.evaluate(() => ({
      cookie: document.cookie,
      storage: JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }),
    }));
    expect(seen).toEqual({ cookie: '', storage: '{}{}' });
    expect(await page.content()).not.toContain(cookie.value);
    // Script in the page can still use the session, but never read a secret: token lists hold no secrets.
    const tokens = await page.evaluate(() => fetch('/api/boxyard/tokens').then((r) => r.text()));
    expect(tokens).toContain('Boxyard web UI — Chrome on Linux');
    expect(tokens).not.toContain(cookie.value);
    // A token an older UI left in localStorage is removed when the page loads.
    await page.evaluate(() => localStorage.setItem('boxyard.token', 'left-by-an-older-ui'));
    await page.reload();
    await page.locator('.topbar .who', { hasText: ADMIN.username }).waitFor();
    expect(await page.evaluate(() => localStorage.getItem('boxyard.token'))).toBeNull();
  });

  it('refuses injected inline script and inline event handlers (CSP), and reports them', async () => {
    expect(cspViolations).toEqual([]);
    await page.evaluate(() => {
      const s = document.createElement('script');
      s.textContent = 'window.injected = "ran"';
      document.body.append(s);
      const img = document.createElement('div');
      img.innerHTML = '<img src="data:," onload="window.injected = \'handler ran\'">';
      document.body.append(img);
    });
    await expect.poll(() => cspViolations.filter((v) => v.startsWith('script-src')).length).toBeGreaterThanOrEqual(2);
    expect(await page.evaluate(() => (window as unknown as { injected?: string }).injected)).toBeUndefined();
    cspViolations.length = 0;
  });

  it('a page on another port of the same host: its forged requests carry the cookie and are refused', async () => {
    const before = await countRows(daemon, 'boxes');
    const other = await page.context().newPage();
    await other.goto(`${attacker.url}/fetch`);
    // The simple request reaches the daemon and is refused (403, not 401: the cookie came along);
    // the one with the header needs a preflight, which the daemon does not grant: never sent.
    expect(await other.evaluate(() => (window as unknown as { results: Promise<string[]> }).results)).toEqual([
      'failed TypeError',
      'failed TypeError',
    ]);
    const form = other.waitForResponse((r) => r.url() === `${daemon.url}/api/v1/boxes`);
    await other.goto(`${attacker.url}/form`);
    const answer = await form;
    expect(answer.status()).toBe(403);
    expect(await answer.text()).toContain('cross-site request forgery');
    await other.close();
    expect(await countRows(daemon, 'boxes')).toBe(before);
  });

  it('cannot be framed by another page', async () => {
    const other = await page.context().newPage();
    const refused = other.waitForEvent('console', (m) => /frame-ancestors/.test(m.text()));
    await other.goto(`${attacker.url}/frame`);
    expect((await refused).text()).toContain("frame-ancestors 'none'");
    await other.close();
  });

  it('refuses a DNS-rebound name: the browser gets 421, no UI and no API', async () => {
    const other = await page.context().newPage();
    const port = new URL(daemon.url).port;
    for (const path of ['/ui/', '/api/boxyard/session', '/healthz']) {
      const r = await other.goto(`http://rebind.test:${port}${path}`);
      expect(r?.status(), path).toBe(421);
      expect(await r?.text()).toContain('does not answer to the host');
    }
    await other.close();
  });
});
