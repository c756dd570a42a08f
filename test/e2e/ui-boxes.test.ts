import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import tar from 'tar-stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startTestDaemon, type TestDaemon } from '../helpers/daemon';
import { JSONAPI, createOrg } from '../helpers/agents';
import {
  chromiumAvailable,
  ensureUiBuilt,
  fieldIssue,
  launchChromium,
  noApiWords,
  signIn,
} from '../helpers/ui-browser';

// Boxes in the web UI: a box, its versions and providers made through the forms (their rules shown, a broken one
// refused beside its field), search, an upload with its progress, and the Mine view. What the UI did is checked
// against the API.

const haveChromium = chromiumAvailable('The boxes UI test');

/** A minimal valid .box: a tar holding metadata.json (what `vagrant package` makes, minus the disk). */
async function boxFile(provider: string): Promise<Buffer> {
  const pack = tar.pack();
  pack.entry({ name: 'metadata.json' }, JSON.stringify({ provider }));
  pack.entry({ name: 'disk.img' }, Buffer.alloc(256 * 1024, 7));
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const c of pack) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

// Skipped only off CI without Chromium; under CI=true chromiumAvailable() throws instead.
describe.skipIf(!haveChromium)('boxes in the web UI, in headless Chromium', () => {
  let daemon: TestDaemon;
  let browser: Browser;
  let page: Page;
  let cspViolations: string[] = [];
  const shots = mkdtempSync(join(tmpdir(), 'boxyard-ui-boxes-'));

  beforeAll(async () => {
    ensureUiBuilt();
    daemon = await startTestDaemon();
    ({ browser, page, cspViolations } = await launchChromium());
  });
  // Every page the UI shows works under the daemon's Content Security Policy: nothing it does is refused.
  afterEach(() => {
    expect(cspViolations).toEqual([]);
  });
  afterAll(async () => {
    process.stdout.write(`UI screenshots: ${shots}\n`);
    await browser?.close();
    await daemon?.stop();
  });

  it('redirects / to the UI and signs in with a password', async () => {
    await signIn(page, daemon.url, ADMIN.username, ADMIN.password);
    await page.getByRole('heading', { name: 'Boxes' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/ui/boxes');
    await page.locator('.topbar .who', { hasText: ADMIN.username }).waitFor();
  });

  it('creates a box, a version and an external provider, releases it and shows the vagrant snippet', async () => {
    await page.getByRole('link', { name: 'New box' }).click();
    // On its own page: until the route has changed, the boxes list's "Sort by" (whose options include Name) is on
    // screen.
    await page.getByRole('heading', { name: 'New box' }).waitFor();
    // Each field's rule is there before typing; a name that breaks it is refused beside the field, and nothing is made.
    const newBox = page.getByRole('form', { name: 'New box' });
    await newBox.getByText(/^Up to 64 letters, numbers, "-", "_" and "\.", starting with a letter or number/).waitFor();
    await newBox.getByLabel('Name', { exact: true }).fill('e2e box!');
    await page.getByRole('button', { name: 'Create box' }).click();
    await fieldIssue(newBox, 'Name')
      .getByText(/^Name may contain only letters, numbers, "-", "_" and "\."/)
      .waitFor();
    await page.screenshot({ path: join(shots, 'new-box-refused.png'), fullPage: true });
    await noApiWords(page);
    expect((await daemon.http.withToken(daemon.adminToken).get(`/api/v1/user/${ADMIN.username}`)).json.boxes).toEqual(
      [],
    );
    await page.getByLabel('Name', { exact: true }).fill('e2e-box');
    await page.getByLabel('Short description').fill('Made by the UI test');
    await page.getByRole('button', { name: 'Create box' }).click();
    await page.getByRole('heading', { name: `${ADMIN.username}/e2e-box` }).waitFor();

    // A version number vagrant could not sort is refused beside its field, before anything is sent.
    const newVersion = page.getByRole('form', { name: 'New version' });
    await newVersion.getByText(/^Numbers with dots, such as 1\.0\.0/).waitFor();
    await newVersion.getByLabel('Version number').fill('v1.0');
    await page.getByRole('button', { name: 'Create version' }).click();
    await fieldIssue(newVersion, 'Version number')
      .getByText(/^Version must be a Ruby Gem version/)
      .waitFor();
    await noApiWords(page);
    expect(
      (await daemon.http.withToken(daemon.adminToken).get(`/api/v1/box/${ADMIN.username}/e2e-box`)).json.versions,
    ).toEqual([]);
    await newVersion.getByLabel('Version number').fill('1.0.0');
    await page.getByRole('button', { name: 'Create version' }).click();
    const version = page.getByRole('article', { name: 'Version 1.0.0' });
    await version.getByText('unreleased').waitFor();

    await version.getByRole('button', { name: 'Add provider' }).click();
    // Uploading a file is the default; a file elsewhere is the other way.
    expect(await version.getByLabel('Upload a .box file').isChecked()).toBe(true);
    await version.getByLabel('External URL').check();
    await version.getByRole('textbox', { name: 'URL', exact: true }).fill('https://example.invalid/e2e/virtualbox.box');
    await version.getByLabel('Checksum (optional)').fill('a'.repeat(64));
    await version.getByRole('button', { name: 'Add provider' }).click();
    await version.getByRole('cell', { name: 'virtualbox' }).waitFor();

    await version.getByRole('button', { name: 'Release' }).click();
    await version.getByText('released', { exact: true }).waitFor();
    const snippet = await page.getByLabel('vagrant box add', { exact: true }).textContent();
    expect(snippet).toBe(`VAGRANT_SERVER_URL=${daemon.url} vagrant box add ${ADMIN.username}/e2e-box`);

    // What the UI did is what the API holds.
    const box = await daemon.http.withToken(daemon.adminToken).get(`/api/v1/box/${ADMIN.username}/e2e-box`);
    expect(box.status).toBe(200);
    expect(box.json.versions[0]).toMatchObject({ version: '1.0.0', status: 'active' });
    expect(box.json.versions[0].providers[0]).toMatchObject({
      name: 'virtualbox',
      original_url: 'https://example.invalid/e2e/virtualbox.box',
    });
    await page.screenshot({ path: join(shots, 'box.png'), fullPage: true });
  });

  it('searches boxes, and says so when nothing matches', async () => {
    await page.getByRole('link', { name: 'Boxes' }).click();
    const search = page.getByRole('searchbox', { name: 'Search boxes' });
    await search.fill('e2e-box');
    await search.press('Enter');
    await page.getByRole('link', { name: `${ADMIN.username}/e2e-box` }).waitFor();
    await search.fill('zzz-nothing-here');
    await search.press('Enter');
    await page.getByText('No boxes match “zzz-nothing-here”.').waitFor();
    expect(await page.getByText('No boxes here yet.').count()).toBe(0);
    await page.getByRole('link', { name: `${ADMIN.username}/e2e-box` }).waitFor({ state: 'detached' });
    await page.goto(`${daemon.url}/ui/boxes/${ADMIN.username}/e2e-box`);
    await page.getByRole('heading', { name: `${ADMIN.username}/e2e-box` }).waitFor();
  });

  it('uploads a box file for a new provider with a progress bar and shows its checksum', async () => {
    const box = `/api/v1/box/${ADMIN.username}/e2e-box`;
    const admin = daemon.http.withToken(daemon.adminToken);
    await page.getByRole('form', { name: 'New version' }).getByLabel('Version number').fill('1.1.0');
    await page.getByRole('button', { name: 'Create version' }).click();
    const version = page.getByRole('article', { name: 'Version 1.1.0' });
    await version.getByText('unreleased').waitFor();

    const file = await boxFile('libvirt');
    await version.getByRole('button', { name: 'Add provider' }).click();
    await version
      .getByLabel('Box file', { exact: true })
      .setInputFiles({ name: 'libvirt.box', mimeType: 'application/octet-stream', buffer: file });
    // Provider and architecture are read from the file's metadata.json.
    await expect.poll(() => version.getByLabel('Provider', { exact: true }).inputValue()).toBe('libvirt');
    // A local upload finishes too fast to catch on screen: record that the progress bar was shown at all.
    await page.evaluate(() => {
      const w = window as unknown as { sawProgress: boolean };
      w.sawProgress = false;
      new MutationObserver(() => {
        if (document.querySelector('progress')) w.sawProgress = true;
      }).observe(document.body, { childList: true, subtree: true });
    });
    await version.getByRole('button', { name: 'Upload', exact: true }).click();
    const sha256 = createHash('sha256').update(file).digest('hex');
    await version.getByText(`sha256:${sha256}`).waitFor();
    await version.getByRole('cell', { name: 'uploaded' }).waitFor();
    expect(await page.evaluate(() => (window as unknown as { sawProgress: boolean }).sawProgress)).toBe(true);
    const provider = await admin.get(`${box}/version/1.1.0/provider/libvirt`);
    expect(provider.json).toMatchObject({ name: 'libvirt', hosted: true, checksum: sha256, checksum_type: 'sha256' });

    // A provider made elsewhere without its file (or whose upload broke off) offers the upload on its row.
    expect(
      (await admin.post(`${box}/version/1.1.0/providers`, { provider: { name: 'qemu', architecture: 'arm64' } }))
        .status,
    ).toBeLessThan(300);
    await page.reload();
    const row = version.getByRole('row', { name: /qemu/ });
    await row.getByLabel('Box file for qemu (arm64)').waitFor();
    await page.screenshot({ path: join(shots, 'box-waiting.png'), fullPage: true });
    const qemu = await boxFile('qemu');
    await row
      .getByLabel('Box file for qemu (arm64)')
      .setInputFiles({ name: 'qemu.box', mimeType: 'application/octet-stream', buffer: qemu });
    await row.getByRole('cell', { name: 'uploaded' }).waitFor();
    expect((await admin.get(`${box}/version/1.1.0/provider/qemu/arm64`)).json).toMatchObject({
      hosted: true,
      checksum: createHash('sha256').update(qemu).digest('hex'),
    });
  });

  it('lists the user’s own and organizations’ boxes under Mine, one request per page', async () => {
    await createOrg(daemon.http.withToken(daemon.adminToken).withContentType(JSONAPI), 'e2e-org');
    await daemon.http
      .withToken(daemon.adminToken)
      .post('/api/v1/boxes', { box: { username: 'e2e-org', name: 'org-box', is_private: true } });
    const apiCalls: string[] = [];
    const seen = (r: { url(): string }) => {
      const u = new URL(r.url());
      if (u.pathname.startsWith('/api/')) apiCalls.push(u.pathname + u.search);
    };
    page.on('request', seen);
    await page.getByRole('link', { name: 'Boxes' }).first().click();
    await page.getByRole('link', { name: 'Mine' }).click();
    const table = page.getByRole('table', { name: 'Boxes' });
    await table.getByRole('link', { name: `${ADMIN.username}/e2e-box` }).waitFor();
    // Private and never released: only its owners' list shows it.
    await table
      .getByRole('row', { name: /e2e-org\/org-box/ })
      .getByText('private')
      .waitFor();
    page.off('request', seen);
    expect(apiCalls.filter((p) => p.startsWith('/api/boxyard/boxes') && p.includes('mine=true'))).toHaveLength(1);
    // None per namespace.
    expect(apiCalls.filter((p) => /\/namespaces|\/user\//.test(p))).toEqual([]);
  });
});
