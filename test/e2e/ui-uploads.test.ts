import { createHash } from 'node:crypto';
import type { Browser, CDPSession, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startTestDaemon, type TestDaemon } from '../helpers/daemon';
import { stagedUploads } from '../helpers/blobs';
import { boxTar } from '../helpers/vagrant';
import { chromiumAvailable, ensureUiBuilt, launchChromium, sawIt, signIn, watchFor } from '../helpers/ui-browser';

const haveChromium = chromiumAvailable('The UI uploads test');
const BOX = `/api/v1/box/${ADMIN.username}/uploads`;

/** A .box of `provider` whose disk image is `size` pattern bytes (plain tar: its size is about the image's). */
const boxOf = (provider: string, size: number): Promise<Buffer> =>
  boxTar(
    [
      ['metadata.json', JSON.stringify({ provider })],
      ['box.img', Buffer.from(Array.from({ length: size }, (_, i) => i % 251))],
    ],
    false,
  );

/** Drops `file` named `name` on `zone`, as a desktop's file manager would. */
async function dropFile(page: Page, zone: Locator, name: string, file: Buffer): Promise<void> {
  const dataTransfer = await page.evaluateHandle(
    ({ name, b64 }) => {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], name, { type: 'application/octet-stream' }));
      return dt;
    },
    { name, b64: file.toString('base64') },
  );
  await zone.dispatchEvent('dragover', { dataTransfer });
  await zone.dispatchEvent('drop', { dataTransfer });
}

/** Slows what the page sends to `bytesPerSecond` (Chromium's network emulation), so an upload can be watched. */
async function throttleUploads(cdp: CDPSession, bytesPerSecond: number): Promise<void> {
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: 0,
    downloadThroughput: -1,
    uploadThroughput: bytesPerSecond,
  });
}

// Skipped only off CI without Chromium; under CI=true chromiumAvailable() throws instead.
describe.skipIf(!haveChromium)('uploads in the web UI (headless Chromium)', () => {
  let daemon: TestDaemon;
  let browser: Browser;
  let page: Page;
  let cdp: CDPSession;
  let cspViolations: string[] = [];

  beforeAll(async () => {
    ensureUiBuilt();
    daemon = await startTestDaemon();
    const admin = daemon.http.withToken(daemon.adminToken);
    expect(
      (await admin.post('/api/v1/boxes', { box: { username: ADMIN.username, name: 'uploads', is_private: false } }))
        .status,
    ).toBe(200);
    expect((await admin.post(`${BOX}/versions`, { version: { version: '1.0.0' } })).status).toBe(200);
    ({ browser, page, cspViolations } = await launchChromium());
    cdp = await page.context().newCDPSession(page);
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

  const openUploadForm = async () => {
    await page.goto(`${daemon.url}/ui/boxes/${ADMIN.username}/uploads`);
    const version = page.getByRole('article', { name: 'Version 1.0.0' });
    await version.getByRole('button', { name: 'Add provider' }).click();
    await version.getByLabel('Upload a .box file').check();
    return version;
  };

  it('uploads a dropped file to 100%, with its speed and time left on the way', async () => {
    const file = await boxOf('virtualbox', 3 * 1024 * 1024);
    const version = await openUploadForm();
    await dropFile(page, version.getByLabel('Drop a .box file here'), 'dropped.box', file);
    await version.getByLabel('Chosen file').getByText('dropped.box').waitFor();
    await expect.poll(() => version.getByLabel('Provider', { exact: true }).inputValue()).toBe('virtualbox');
    // 1 MiB/s: about three seconds, long enough for the speed to be measured on screen.
    await throttleUploads(cdp, 1024 * 1024);
    await watchFor(page, 'progress[aria-label="Upload progress"][value="1"]', 'sawFull');
    await watchFor(page, '[aria-label="Upload speed"]', 'sawSpeed');
    await watchFor(page, '[aria-label="Time left"]', 'sawEta');
    await version.getByRole('button', { name: 'Upload', exact: true }).click();
    await version
      .getByRole('row', { name: /virtualbox/ })
      .getByRole('cell', { name: 'uploaded' })
      .waitFor({ timeout: 30_000 });
    await throttleUploads(cdp, -1);
    expect(await sawIt(page, 'sawFull'), 'the bar at 100%').toBe(true);
    expect(await sawIt(page, 'sawSpeed'), 'the speed').toBe(true);
    expect(await sawIt(page, 'sawEta'), 'the time left').toBe(true);
    const provider = await daemon.http
      .withToken(daemon.adminToken)
      .get(`${BOX}/version/1.0.0/provider/virtualbox/amd64`);
    expect(provider.json).toMatchObject({
      hosted: true,
      checksum: createHash('sha256').update(file).digest('hex'),
      checksum_type: 'sha256',
    });
  });

  it('keeps the picker and drops off while uploading, and Cancel aborts the upload itself', async () => {
    const big = await boxOf('libvirt', 4 * 1024 * 1024);
    const version = await openUploadForm();
    await version.getByLabel('Box file', { exact: true }).setInputFiles({
      name: 'big.box',
      mimeType: 'application/octet-stream',
      buffer: big,
    });
    await expect.poll(() => version.getByLabel('Provider', { exact: true }).inputValue()).toBe('libvirt');
    // 128 KiB/s: 32 s for the whole file, far longer than the test takes to cancel it.
    await throttleUploads(cdp, 128 * 1024);
    await version.getByRole('button', { name: 'Upload', exact: true }).click();
    await version.getByLabel('Upload speed').waitFor();

    // One upload at a time: the picker is disabled and a second file dropped now is not taken.
    expect(await version.getByLabel('Box file', { exact: true }).isDisabled()).toBe(true);
    expect(await version.getByRole('button', { name: 'Uploading…' }).isDisabled()).toBe(true);
    await dropFile(
      page,
      version.getByRole('form', { name: 'Add a box file' }).getByLabel('Drop a .box file here'),
      'second.box',
      await boxOf('qemu', 1024),
    );
    // React handles a drop synchronously: had it been taken, the name would show by now.
    await version.getByLabel('Chosen file').getByText('big.box').waitFor();
    expect(await version.getByText('second.box').count()).toBe(0);

    // Leaving the page now asks first.
    const warned = await page.evaluate(() => {
      const e = new Event('beforeunload', { cancelable: true });
      window.dispatchEvent(e);
      return e.defaultPrevented;
    });
    expect(warned).toBe(true);

    await version.getByRole('button', { name: 'Cancel upload' }).click();
    await version.getByText('Upload cancelled').waitFor();
    await throttleUploads(cdp, -1);

    // The daemon saw the PUT break off: nothing was made, and nothing is left staged.
    expect(
      (await daemon.http.withToken(daemon.adminToken).get(`${BOX}/version/1.0.0/provider/libvirt/amd64`)).status,
    ).toBe(404);
    await expect.poll(() => stagedUploads(daemon), { timeout: 10_000 }).toEqual([]);
    expect(
      await page.evaluate(() => {
        const e = new Event('beforeunload', { cancelable: true });
        window.dispatchEvent(e);
        return e.defaultPrevented;
      }),
    ).toBe(false);

    // Retry sends the file again.
    await version.getByRole('button', { name: 'Retry upload' }).click();
    await version
      .getByRole('row', { name: /libvirt/ })
      .getByRole('cell', { name: 'uploaded' })
      .waitFor({ timeout: 30_000 });
    const done = await daemon.http.withToken(daemon.adminToken).get(`${BOX}/version/1.0.0/provider/libvirt/amd64`);
    expect(done.json).toMatchObject({
      hosted: true,
      checksum: createHash('sha256').update(big).digest('hex'),
    });
  });
});
