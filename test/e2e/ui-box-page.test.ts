import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient } from '../helpers/http';
import { hostedProvider } from '../helpers/blobs';
import { createBox, publish } from '../helpers/registry';
import { rawGet, rawPut } from '../helpers/upload';
import { chromiumAvailable, ensureUiBuilt, launchChromium, signIn, watchErrors } from '../helpers/ui-browser';

// The box page: Markdown rendered and sanitized, architecture, sizes, downloads,
// checksum copy, the Vagrantfile snippet, versions a page at a time, everyday edits, and a
// read-only page for whoever may not change the box.

const haveChromium = chromiumAvailable('The box page browser test');

const DESCRIPTION = [
  '# Getting started',
  'A **minimal** image for the lab.',
  '<script>window.__pwned = "script"</script>',
  '<img src="x" onerror="window.__pwned = \'onerror\'">',
  '[the docs](https://docs.example.invalid/showcase)',
  '![logo](https://images.example.invalid/logo.png)',
].join('\n\n');
const file = randomBytes(70_000);
const sha256 = createHash('sha256').update(file).digest('hex');
const BOX = '/api/v1/box/alice/showcase';

// Skipped only off CI without Chromium; under CI=true chromiumAvailable() throws instead.
describe.skipIf(!haveChromium)('the box page in headless Chromium', () => {
  let daemon: TestDaemon;
  let alice: HttpClient;
  let browser: Browser;
  let page: Page;
  let csp: string[] = [];
  const problems: string[] = [];
  const shots = mkdtempSync(join(tmpdir(), 'boxyard-box-page-shots-'));
  const article = (v: string) => page.getByRole('article', { name: `Version ${v}` });

  beforeAll(async () => {
    ensureUiBuilt();
    daemon = await startTestDaemon();
    alice = (await daemon.user('alice')).http;
    await daemon.user('bob');
    await createBox(alice, 'alice', 'showcase', { short: 'A box worth sharing' });
    expect((await alice.put(BOX, { box: { description: DESCRIPTION } })).status).toBe(200);
    // Twelve older versions with an external file each (vagrant's order: 1.11.0 above 1.9.0), then
    // 2.0.0 with a file stored here, downloaded twice.
    for (let minor = 0; minor < 12; minor++)
      await publish(alice, 'alice', 'showcase', `1.${minor}.0`, { architecture: 'arm64' });
    const api = await hostedProvider(alice, 'alice', 'showcase', '2.0.0', { api: 'v2', architecture: 'amd64' });
    expect((await rawPut((await alice.get(`${api}/upload`)).json.upload_path, file)).status).toBe(200);
    expect((await alice.put(`${BOX}/version/2.0.0/release`)).status).toBe(200);
    for (let i = 0; i < 2; i++)
      expect(
        (await rawGet(`${daemon.url}/alice/boxes/showcase/versions/2.0.0/providers/virtualbox/amd64/vagrant.box`))
          .status,
      ).toBe(200);
    // Counted once each response has finished, just after the client has its last byte.
    await vi.waitFor(async () => expect((await alice.get(BOX)).json.downloads).toBe(2));

    ({ browser, page, cspViolations: csp } = await launchChromium());
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: daemon.url });
    watchErrors(page, problems);
    await signIn(page, daemon.url, 'alice', 'alice-password');
    await page.locator('.topbar .who', { hasText: 'alice' }).waitFor();
    await page.goto(`${daemon.url}/ui/boxes/alice/showcase`);
    await page.getByRole('heading', { name: 'alice/showcase' }).waitFor();
  });
  afterEach(() => {
    const seen = { csp: csp.splice(0), problems: problems.splice(0) };
    expect(seen).toEqual({ csp: [], problems: [] });
  });
  afterAll(async () => {
    await browser?.close();
    await daemon?.stop();
  });

  it('renders the description’s Markdown, and nothing it smuggles in runs or reaches the page', async () => {
    const md = page.locator('.box-about .markdown');
    await md.locator('strong', { hasText: 'minimal' }).waitFor();
    // Its headings sit below the page's title and the card's: `# Getting started` is an h3, the page's only h1 its own.
    await md.getByRole('heading', { name: 'Getting started', level: 3 }).waitFor();
    expect(await page.getByRole('heading', { level: 1 }).allTextContents()).toEqual(['alice/showcase']);
    expect(await page.getByText('**minimal**').count()).toBe(0);
    // HTML in a description is shown as the text it is: nothing of it is markup on the page.
    await md.getByText('<script>window.__pwned = "script"</script>').waitFor();
    await md.getByText(`<img src="x" onerror="window.__pwned = 'onerror'">`).waitFor();
    expect(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned)).toBeUndefined();
    expect(await md.locator('script').count()).toBe(0);
    expect(await page.locator('[onerror]').count()).toBe(0);
    // Images from elsewhere would break the page's CSP: they are links to the image instead.
    expect(await md.locator('img').count()).toBe(0);
    expect(await md.getByRole('link', { name: 'logo' }).getAttribute('href')).toBe(
      'https://images.example.invalid/logo.png',
    );
    const docs = md.getByRole('link', { name: 'the docs' });
    expect(await docs.getAttribute('target')).toBe('_blank');
    expect(await docs.getAttribute('rel')).toContain('noopener');
  });

  it('calls a released version released, the word of its Release and Revoke buttons (the API says active)', async () => {
    const badge = article('2.0.0').locator('header .badge').first();
    expect(await badge.textContent()).toBe('released');
    expect(await page.locator('.version .badge', { hasText: /^active$/ }).count()).toBe(0);
  });

  it('shows each provider’s architecture, size and downloads, and copies a checksum', async () => {
    const row = article('2.0.0').getByRole('row', { name: /virtualbox/ });
    await row.getByRole('cell', { name: 'amd64 default', exact: true }).waitFor();
    await row.getByRole('cell', { name: '68.4 KiB' }).waitFor();
    await row.getByRole('cell', { name: '2', exact: true }).waitFor();
    await article('2.0.0').getByText('2 downloads').waitFor();
    await article('1.11.0')
      .getByRole('row', { name: /virtualbox/ })
      .getByRole('cell', { name: 'arm64 default', exact: true })
      .waitFor();
    await article('1.11.0').getByText('0 downloads').waitFor();

    const checksum = row.getByLabel('checksum (amd64)', { exact: true });
    expect(await checksum.textContent()).toBe(`sha256:${sha256}`);
    await row.getByRole('button', { name: 'Copy' }).click();
    await row.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`sha256:${sha256}`);
  });

  it('offers a Vagrantfile pinned to the current release, from this daemon’s catalog', async () => {
    const snippet = await page.getByLabel('Vagrantfile', { exact: true }).textContent();
    expect(snippet).toBe(
      [
        'Vagrant.configure("2") do |config|',
        '  config.vm.box = "alice/showcase"',
        '  config.vm.box_version = "2.0.0"',
        `  config.vm.box_url = "${daemon.url}/alice/showcase"`,
        'end',
      ].join('\n'),
    );
    // The box_url is the catalog vagrant reads.
    const catalog = await daemon.http.get('/alice/showcase');
    expect(catalog.json).toMatchObject({
      name: 'alice/showcase',
      versions: expect.arrayContaining([expect.objectContaining({ version: '2.0.0' })]),
    });
    expect(await page.getByLabel('vagrant box add', { exact: true }).textContent()).toBe(
      `VAGRANT_SERVER_URL=${daemon.url} vagrant box add alice/showcase`,
    );
  });

  it('lists 13 versions ten at a time, newest first, and keeps the page in the address', async () => {
    const versions = () => page.getByRole('article').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));
    const pager = page.getByRole('navigation', { name: 'Version pages', exact: true });
    await pager.getByText('Versions 1–10 of 13').waitFor();
    expect(await versions()).toEqual(
      ['2.0.0', '1.11.0', '1.10.0', '1.9.0', '1.8.0', '1.7.0', '1.6.0', '1.5.0', '1.4.0', '1.3.0'].map(
        (v) => `Version ${v}`,
      ),
    );
    expect(await pager.getByRole('button', { name: 'Newer versions' }).isDisabled()).toBe(true);
    await pager.getByRole('button', { name: 'Older versions' }).click();
    await pager.getByText('Versions 11–13 of 13').waitFor();
    expect(await versions()).toEqual(['Version 1.2.0', 'Version 1.1.0', 'Version 1.0.0']);
    expect(new URL(page.url()).search).toBe('?versions=2');
    await page.reload();
    await pager.getByText('Versions 11–13 of 13').waitFor();
    expect(await pager.getByRole('button', { name: 'Older versions' }).isDisabled()).toBe(true);
    await pager.getByRole('button', { name: 'Newer versions' }).click();
    await article('2.0.0').waitFor();
    expect(new URL(page.url()).search).toBe('');
  });

  it('edits the descriptions and the private flag, which the API then holds', async () => {
    await page.getByRole('button', { name: 'Edit short description' }).click();
    await page.getByRole('textbox', { name: 'Short description' }).fill('Shared across the lab');
    await page.getByRole('button', { name: 'Save short description' }).click();
    await page.locator('.lead', { hasText: 'Shared across the lab' }).waitFor();
    expect((await alice.get(BOX)).json.short_description).toBe('Shared across the lab');

    await page.getByRole('button', { name: 'Edit description', exact: true }).click();
    await page.getByRole('textbox', { name: 'Description', exact: true }).fill('Now with **arm64** images.');
    await page.getByRole('button', { name: 'Save description', exact: true }).click();
    await page.locator('.box-about .markdown strong', { hasText: 'arm64' }).waitFor();
    expect((await alice.get(BOX)).json.description_markdown).toBe('Now with **arm64** images.');

    await page.getByRole('checkbox', { name: /Private/ }).check();
    await page.getByRole('heading', { name: 'alice/showcase' }).getByText('private').waitFor();
    expect((await alice.get(BOX)).json.private).toBe(true);
    await page.getByRole('checkbox', { name: /Private/ }).uncheck();
    await expect.poll(async () => (await alice.get(BOX)).json.private).toBe(false);

    await article('2.0.0').getByRole('button', { name: 'Edit description of 2.0.0' }).click();
    await article('2.0.0').getByRole('textbox', { name: 'Description of 2.0.0' }).fill('Adds _virtualbox_ on amd64.');
    await article('2.0.0').getByRole('button', { name: 'Save description of 2.0.0' }).click();
    await article('2.0.0').locator('.markdown em', { hasText: 'virtualbox' }).waitFor();
    expect((await alice.get(`${BOX}/version/2.0.0`)).json.description_markdown).toBe('Adds _virtualbox_ on amd64.');
  });

  it('shows a refused edit beside its field and keeps what was typed', async () => {
    await page.getByRole('button', { name: 'Edit short description' }).click();
    const field = page.getByRole('textbox', { name: 'Short description' });
    await field.fill('x'.repeat(1025));
    await page.getByRole('button', { name: 'Save short description' }).click();
    const alert = page.locator('form.text-edit').getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/short_description/);
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    expect((await field.inputValue()).length).toBe(1025);
    expect((await alice.get(BOX)).json.short_description).toBe('Shared across the lab');
    await page.getByRole('button', { name: 'Cancel' }).click();
    await alert.waitFor({ state: 'detached' });
    // The refusal is Vagrant Cloud's 403 for a bad parameter, which Chromium logs as a failed load.
    expect(problems.splice(0)).toEqual([
      'console: Failed to load resource: the server responded with a status of 403 (Forbidden)',
    ]);
  });

  it('fits a phone: the providers table turns into lines, nothing in the page scrolls sideways', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await article('2.0.0').waitFor();
    const overflow = await page.evaluate(() => {
      const main = document.querySelector('main');
      if (!main) throw new Error('the box page has no <main>');
      return main.scrollWidth - main.clientWidth;
    });
    expect(overflow).toBeLessThanOrEqual(0);
    await page.screenshot({ path: join(shots, 'box-390.png'), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.screenshot({ path: join(shots, 'box-1280.png'), fullPage: true });
    process.stdout.write(`Box page screenshots: ${shots}\n`);
  });

  /** In a browser session of its own: the box page shows everything but offers no change. */
  async function expectReadOnly(login: string | null) {
    const other = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const visitor = await other.newPage();
      const seen: string[] = [];
      watchErrors(visitor, seen);
      if (login) {
        await signIn(visitor, daemon.url, login, `${login}-password`);
        await visitor.locator('.topbar .who', { hasText: login }).waitFor();
      }
      await visitor.goto(`${daemon.url}/ui/boxes/alice/showcase`);
      const v2 = visitor.getByRole('article', { name: 'Version 2.0.0' });
      await v2
        .getByRole('row', { name: /virtualbox/ })
        .getByRole('cell', { name: '68.4 KiB' })
        .waitFor();
      await visitor.locator('.box-about .markdown strong', { hasText: 'arm64' }).waitFor();
      await v2.getByRole('button', { name: 'Copy' }).waitFor();
      await visitor.getByLabel('Vagrantfile', { exact: true }).waitFor();
      for (const name of [
        'Delete box',
        'Create version',
        'Edit short description',
        'Edit description',
        'Release',
        'Revoke',
        'Delete',
        'Add provider',
      ]) {
        expect(await visitor.getByRole('button', { name, exact: true }).count(), name).toBe(0);
      }
      expect(await visitor.getByRole('checkbox', { name: /Private/ }).count()).toBe(0);
      expect(await visitor.getByRole('heading', { name: 'Add a box file' }).count()).toBe(0);
      expect(seen).toEqual([]);
    } finally {
      await other.close();
    }
  }

  it('is read-only for a signed-in user who may not change the box', async () => {
    await expectReadOnly('bob');
  });

  it('is read-only for a visitor who is not signed in', async () => {
    await expectReadOnly(null);
  });
});
