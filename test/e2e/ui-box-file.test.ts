import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startTestDaemon, type TestDaemon } from '../helpers/daemon';
import { stagedUploads } from '../helpers/blobs';
import { boxTar } from '../helpers/vagrant';

import {
  axeFindings,
  chromiumAvailable,
  ensureUiBuilt,
  launchChromium,
  SCREENSHOTS,
  signIn,
} from '../helpers/ui-browser';

const haveChromium = chromiumAvailable('The UI box file test');

const metadata = (doc: unknown): [string, string] => ['metadata.json', JSON.stringify(doc)];

/** Chooses a .box file in `form` as the file picker would. */
const choose = (form: Locator, name: string, buffer: Buffer) =>
  form.getByLabel('Box file', { exact: true }).setInputFiles({ name, mimeType: 'application/octet-stream', buffer });

/**
 * The one way to add a box file: the file first, its provider and architecture read from it and shown, a preview of
 * what the upload makes, the owner preselected from the organization page the user came from; and a file whose
 * metadata.json is refused says so beside its field and makes nothing.
 */
describe.skipIf(!haveChromium)('adding a box file in the web UI (headless Chromium)', () => {
  let daemon: TestDaemon;
  let browser: Browser;
  let page: Page;
  let cspViolations: string[] = [];

  beforeAll(async () => {
    ensureUiBuilt();
    daemon = await startTestDaemon();
    const admin = daemon.http.withToken(daemon.adminToken);
    expect((await admin.post('/api/boxyard/organizations', { organization: { name: 'acme' } })).status).toBe(201);
    ({ browser, page, cspViolations } = await launchChromium());
    await signIn(page, daemon.url, ADMIN.username, ADMIN.password);
    await page.getByRole('heading', { name: 'Boxes' }).waitFor();
  });
  afterEach(() => {
    expect(cspViolations).toEqual([]);
  });
  afterAll(async () => {
    await browser?.close();
    await daemon?.stop();
  });

  const form = () => page.getByRole('form', { name: 'Add a box file' });
  const preview = () => form().getByRole('status', { name: 'What the upload makes' });

  it("from an organization's page: the file's provider and architecture, a live preview, then the box", async () => {
    await page.goto(`${daemon.url}/ui/organizations/acme`);
    await page.getByRole('link', { name: 'Add a box file' }).click();
    await page.getByRole('heading', { name: 'Add a box file' }).waitFor();
    expect(new URL(page.url()).search).toBe('?owner=acme');
    await expect.poll(() => form().getByLabel('Owner', { exact: true }).inputValue()).toBe('acme');

    // A libvirt box as Packer makes it: the disk image before metadata.json.
    const file = await boxTar([
      ['box.img', randomBytes(256 * 1024)],
      ['Vagrantfile', ''],
      metadata({ provider: 'libvirt', architecture: 'arm64', format: 'qcow2' }),
    ]);
    await choose(form(), 'debian-12.box', file);
    await expect.poll(() => form().getByLabel('Provider', { exact: true }).inputValue()).toBe('libvirt');
    expect(await form().getByLabel('Architecture', { exact: true }).inputValue()).toBe('arm64');
    expect(await form().getByLabel('Box name', { exact: true }).inputValue()).toBe('debian-12');
    expect(await preview().textContent()).toBe('acme/debian-12 version 1.0.0, libvirt for arm64, released');

    await form().getByLabel('Box name', { exact: true }).fill('web');
    await form().getByLabel('Version', { exact: true }).fill('2.0.0');
    expect(await preview().textContent()).toBe('acme/web version 2.0.0, libvirt for arm64, released');
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      expect(await axeFindings(page), `axe at ${width} px`).toEqual([]);
      await page.screenshot({ path: join(SCREENSHOTS, `add-box-file-filled-${width}.png`), fullPage: true });
    }
    await page.setViewportSize({ width: 1280, height: 900 });

    await form().getByRole('button', { name: 'Upload', exact: true }).click();
    await page.getByRole('heading', { name: 'acme/web' }).waitFor();
    const version = page.getByRole('article', { name: 'Version 2.0.0' });
    await version.getByText('released', { exact: true }).waitFor();
    const architecture = version.getByRole('row', { name: /libvirt/ }).locator('td[data-label="Architecture"]');
    await expect.poll(() => architecture.textContent()).toMatch(/^arm64/);
    const provider = await daemon.http.get('/api/v1/box/acme/web/version/2.0.0/provider/libvirt/arm64');
    expect(provider.json).toMatchObject({
      hosted: true,
      checksum: createHash('sha256').update(file).digest('hex'),
      checksum_type: 'sha256',
    });
  });

  it('the New box page takes ?owner= too, and previews the name it makes', async () => {
    await page.goto(`${daemon.url}/ui/boxes/new?owner=acme`);
    await page.getByRole('heading', { name: 'New box' }).waitFor();
    await expect.poll(() => page.getByRole('combobox', { name: /^Owner/ }).inputValue()).toBe('acme');
    await page.getByLabel('Name', { exact: true }).fill('db');
    expect(await page.getByRole('status', { name: 'The new box' }).textContent()).toBe('acme/db');
  });

  it("a box's own page: a file that names no architecture is amd64, and says so", async () => {
    await page.goto(`${daemon.url}/ui/boxes/acme/web`);
    await choose(form(), 'vb.box', await boxTar([metadata({ provider: 'virtualbox' })]));
    await form().getByText('Its metadata.json names no architecture (amd64 is assumed).').waitFor();
    expect(await form().getByLabel('Architecture', { exact: true }).inputValue()).toBe('amd64');
    expect(await form().getByLabel('Box name', { exact: true }).count()).toBe(0);
    await form().getByLabel('Version', { exact: true }).fill('2.0.0');
    expect(await preview().textContent()).toBe('acme/web version 2.0.0, virtualbox for amd64, unreleased');
    await form().getByRole('button', { name: 'Upload', exact: true }).click();
    await form().getByText('Added acme/web 2.0.0: virtualbox for amd64, released.').waitFor();
    expect((await daemon.http.get('/api/v1/box/acme/web/version/2.0.0/provider/virtualbox/amd64')).status).toBe(200);
  });

  it.each([
    [
      'a provider name the contract refuses',
      [metadata({ provider: '../virtualbox' })],
      'Provider',
      /names the provider/,
    ],
    [
      'an architecture vagrant does not know',
      [metadata({ provider: 'virtualbox', architecture: 'x86_64' })],
      'Architecture',
      /names the architecture "x86_64", which vagrant does not know/,
    ],
    ['a metadata.json that is not JSON', [['metadata.json', '{"provider":']], null, /not valid JSON/],
    [
      'a metadata.json over 64 KiB',
      [metadata({ provider: 'virtualbox', pad: 'x'.repeat(70_000) })],
      null,
      /larger than 64 KiB/,
    ],
  ] as Array<[string, Array<[string, string]>, string | null, RegExp]>)(
    'a file with %s: the reason beside its field, and nothing made',
    async (_name, entries, field, words) => {
      await page.goto(`${daemon.url}/ui/boxes/add?owner=acme`);
      await choose(form(), 'junk.box', await boxTar(entries));
      const alert = form().getByRole('alert').filter({ hasText: words });
      await alert.waitFor();
      // Beside the field it names (the file's, else the provider's or the architecture's): its description says it.
      const control = form().getByLabel(field ?? 'Box file', { exact: true });
      if (field) expect(await control.inputValue()).toBe('');
      expect(await control.getAttribute('aria-describedby')).toContain(await alert.getAttribute('id'));
      expect(await control.getAttribute('aria-invalid')).toBe('true');
      expect(await axeFindings(page)).toEqual([]);
      await form().getByRole('button', { name: 'Upload', exact: true }).click();
      await alert.waitFor();
      expect(page.url()).toContain('/ui/boxes/add');
      expect((await daemon.http.get('/api/v1/box/acme/junk')).status).toBe(404);
      expect(await stagedUploads(daemon)).toEqual([]);
    },
  );
});
