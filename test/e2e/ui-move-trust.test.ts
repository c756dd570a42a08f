import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, localCaOf, startTestDaemon, type TestDaemon } from '../helpers/daemon';
import { allowHcpStorage, startHcpUpstream, type HcpUpstream } from '../helpers/hcp-upstream';
import { freshHome, paste } from '../helpers/pasted';
import { chromiumAvailable, ensureUiBuilt, launchChromium, signIn } from '../helpers/ui-browser';
import { makeBoxFile, vagrantInstalled } from '../helpers/vagrant';

// The Move from HCP Vagrant page on a daemon that runs its own CA (`--tls auto`): once the copy is done, the lines
// for users come after the trust step, and pasted on "another machine" (a fresh HOME, test/helpers/pasted.ts) as
// shown, the trust step keeps the CA and the lines' CA file lets curl (and vagrant, where installed) read the catalog
// of a box the copy made. The fake HCP Vagrant is on 127.0.0.1; nothing leaves this machine.

const haveChromium = chromiumAvailable('The Move page trust-step browser test');
const haveVagrant = vagrantInstalled();
const TOKEN = 'hcp-trust-token';

describe.skipIf(!haveChromium)("the Move page's trust step under --tls auto (headless Chromium)", () => {
  let hcp: HcpUpstream;
  let daemon: TestDaemon;
  let browser: Browser;
  let page: Page;
  const homes: string[] = [];
  const shots = mkdtempSync(join(tmpdir(), 'boxyard-move-trust-'));

  beforeAll(async () => {
    ensureUiBuilt();
    const file = await makeBoxFile(join(shots, 'web.box'), 'virtualbox', 16 * 1024, 'amd64');
    hcp = await startHcpUpstream({
      token: TOKEN,
      boxes: [
        {
          org: 'hashi',
          name: 'web',
          private: false,
          short_description: 'web',
          description: '',
          versions: [
            {
              version: '1.0.0',
              status: 'active',
              description: '',
              providers: [{ name: 'virtualbox', architecture: 'amd64', default_architecture: true, file }],
            },
          ],
        },
      ],
    });
    daemon = await startTestDaemon({ config: { tls: 'auto' } });
    await allowHcpStorage(daemon.http.withToken(daemon.adminToken));
    ({ browser } = await launchChromium());
    // The browser does not trust the CA: what the page shows is under test, not the handshake.
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ignoreHTTPSErrors: true });
    context.setDefaultTimeout(15_000);
    page = await context.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await Promise.all([daemon?.stop(), hcp?.stop()]);
    for (const h of homes) rmSync(h, { recursive: true, force: true });
    process.stdout.write(`Move page trust step screenshots: ${shots}\n`);
  });
  const home = () => {
    const h = freshHome();
    homes.push(h);
    return h;
  };
  const shown = async (label: string) => (await page.getByLabel(label, { exact: true }).textContent()) ?? '';

  it('after the copy, the lines for users follow the trust step, and pasted they reach the copied box', async () => {
    await signIn(page, daemon.url, ADMIN.username, ADMIN.password, '/mirrors/move');
    const form = page.getByRole('form', { name: 'Move from HCP Vagrant' });
    await form.getByLabel('HCP Vagrant / Vagrant Cloud URL').fill(hcp.url);
    await form.getByLabel('HCP token').fill(TOKEN);
    await form.getByLabel('HCP organization').fill('hashi');
    await form.getByRole('button', { name: 'See the plan' }).click();
    await page.getByRole('table', { name: 'Boxes to copy' }).waitFor();
    await page.getByRole('button', { name: 'Start the copy' }).click();
    await page.locator('.job[data-state="done"]').waitFor({ timeout: 60_000 });

    const users = page.getByRole('region', { name: 'Give your users these lines' });
    await users.getByRole('heading', { name: 'Trust this server' }).waitFor();
    expect(await shown('CA fingerprint (SHA-256)')).toBe(localCaOf(daemon).fingerprint);
    expect(await users.getByRole('link', { name: 'the CA (/ca.pem)' }).getAttribute('href')).toBe('/ca.pem');
    const lines = await shown('Lines for your users');
    expect(lines).toContain(`export VAGRANT_SERVER_URL=${daemon.url}\n`);
    const add = /^vagrant box add --cacert (\S+) hashi\/web\b.*$/m.exec(lines);
    const url = /config\.vm\.box_url = "([^"]+)"/.exec(lines)?.[1];
    const ca = /config\.vm\.box_download_ca_cert = File\.expand_path\("~\/([^"]+)"\)/.exec(lines)?.[1];
    expect(add?.[1]).toBe(`~/${ca}`);
    expect(url).toBe(`${daemon.url}/hashi/web`);
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.screenshot({ path: join(shots, `move-done-${width}.png`), fullPage: true });
    }
    await page.setViewportSize({ width: 1280, height: 900 });

    // Without the trust step, the machine has no CA file and curl trusts nothing.
    const curl = `curl -fsS --cacert ~/${ca} ${url}`;
    expect((await paste(curl, home())).code).not.toBe(0);

    const h = home();
    const fetched = await paste(await shown('Fetch and check the CA'), h);
    expect(fetched.code, fetched.stderr).toBe(0);
    expect(fetched.stdout).toContain('CA checked');
    expect(existsSync(join(h, ca ?? ''))).toBe(true);
    const catalog = await paste(curl, h);
    expect(catalog.code, catalog.stderr).toBe(0);
    expect(JSON.parse(catalog.stdout)).toMatchObject({ name: 'hashi/web', versions: [{ version: '1.0.0' }] });
    if (haveVagrant) {
      const exports = lines.split('\n').filter((l) => l.startsWith('export VAGRANT_SERVER_URL='));
      const added = await paste([...exports, add?.[0] ?? ''].join('\n'), h);
      expect(added.code, added.stdout + added.stderr).toBe(0);
      expect(added.stdout).toContain("Successfully added box 'hashi/web' (v1.0.0)");
    }
  });
});
