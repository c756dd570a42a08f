import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startTestDaemon, type TestDaemon } from '../helpers/daemon';
import { sha256 } from '../helpers/clients';
import { makeBoxFile } from '../helpers/vagrant';
import { slowCatalog, type SlowCatalog } from '../helpers/ui-slow-catalog';
import { chromiumAvailable, ensureUiBuilt, launchChromium, sawIt, signIn, watchFor } from '../helpers/ui-browser';
import { publishHosted } from '../helpers/mirror';

const haveChromium = chromiumAvailable('The mirroring UI end-to-end test');

// Skipped only off CI without Chromium; under CI=true chromiumAvailable() throws instead.
describe.skipIf(!haveChromium)('mirroring in the web UI (headless Chromium)', () => {
  let upstream: TestDaemon; // A: holds the original boxes
  let mirror: TestDaemon; // B: the daemon the browser drives
  let browser: Browser;
  let page: Page;
  let cspViolations: string[] = [];
  let base: Buffer;
  let slow: SlowCatalog; // a third upstream whose file trickles, to watch a job run
  const tmp = mkdtempSync(join(tmpdir(), 'boxyard-mirror-ui-'));

  beforeAll(async () => {
    ensureUiBuilt();
    [upstream, mirror] = await Promise.all([startTestDaemon(), startTestDaemon()]);
    const a = upstream.http.withToken(upstream.adminToken);
    expect((await a.post('/api/boxyard/organizations', { organization: { name: 'lab' } })).status).toBeLessThan(300);
    base = await makeBoxFile(join(tmp, 'base.box'), 'virtualbox', 512 * 1024);
    await publishHosted(a, 'lab', 'base', '1.0.0', base);
    // In an organization the mirror daemon does not have: the cache only fills namespaces of its own.
    expect((await a.post('/api/boxyard/organizations', { organization: { name: 'vendor' } })).status).toBeLessThan(300);
    await publishHosted(a, 'vendor', 'other', '0.1.0', await makeBoxFile(join(tmp, 'other.box'), 'virtualbox'));
    slow = await slowCatalog('lab/slow');
    ({ browser, page, cspViolations } = await launchChromium());
  }, 60_000);
  afterEach(() => {
    expect(cspViolations).toEqual([]);
  });
  afterAll(async () => {
    await browser?.close();
    await Promise.all([upstream?.stop(), mirror?.stop(), slow?.close()]);
  });

  it('adds upstreams; a token is write-only', async () => {
    await signIn(page, mirror.url, ADMIN.username, ADMIN.password);
    await page.getByRole('link', { name: 'Mirrors' }).click();
    await page.getByRole('heading', { name: 'Mirrors', level: 1 }).waitFor();

    const form = page.getByRole('form', { name: 'New upstream' });
    await form.getByLabel('Name').fill('upstream-a');
    await form.getByLabel('URL').fill(upstream.url);
    await form.getByRole('button', { name: 'Add upstream' }).click();
    const row = page.getByRole('table', { name: 'Upstreams' }).getByRole('row', { name: /upstream-a/ });
    await row.getByRole('cell', { name: 'registry' }).waitFor();

    // The daemon's {"errors":[…]} shows on the form (a second upstream with the same name).
    await form.getByLabel('Name').fill('upstream-a');
    await form.getByLabel('URL').fill(upstream.url);
    await form.getByRole('button', { name: 'Add upstream' }).click();
    await form.getByRole('alert').waitFor();
    expect(
      await page
        .getByRole('table', { name: 'Upstreams' })
        .getByRole('row', { name: /upstream-a/ })
        .count(),
    ).toBe(1);

    await form.getByLabel('Name').fill('with-token');
    await form.getByLabel('URL').fill('https://registry.example');
    await form.getByLabel('Token (optional)').fill('s3cret-upstream-token');
    await form.getByRole('button', { name: 'Add upstream' }).click();
    const tokenRow = page.getByRole('row', { name: /with-token/ });
    await tokenRow.getByRole('cell', { name: 'yes', exact: true }).waitFor();
    expect(await page.content()).not.toContain('s3cret-upstream-token');
    page.once('dialog', (d) => void d.accept());
    await tokenRow.getByRole('button', { name: 'Delete' }).click();
    await tokenRow.waitFor({ state: 'detached' });
  });

  it('mirrors ORG/BOX and shows the job progress until it is done', async () => {
    const form = page.getByRole('form', { name: 'New mirror' });
    await form.getByLabel('Upstream', { exact: true }).selectOption({ label: 'upstream-a' });
    const source = form.getByLabel('Source');
    await source.fill('lab/base/extra'); // the browser checks the shape before anything is sent
    expect(await source.evaluate((el) => (el as HTMLInputElement).validity.patternMismatch)).toBe(true);
    await source.fill('lab/base');
    expect(await source.evaluate((el) => (el as HTMLInputElement).validity.valid)).toBe(true);
    await watchFor(page, 'progress[aria-label^="Progress of job"]', 'sawJobBar');
    await form.getByRole('button', { name: 'Create mirror' }).click();

    const card = page.getByRole('article', { name: 'Mirror lab/base' });
    await card.locator('.job[data-state="done"]').waitFor({ timeout: 60_000 });
    expect(await sawIt(page, 'sawJobBar')).toBe(true);
    await card.getByText('100%').waitFor();
    await card.getByText('files 1/1').waitFor();
    await card.getByText(/Published lab\/base 1\.0\.0/).waitFor();

    // What the browser started is what B now serves: A's file, under A's checksum.
    const catalog = await mirror.http.get('/lab/base');
    expect(catalog.status, catalog.text).toBe(200);
    expect(catalog.json.versions).toEqual([
      expect.objectContaining({
        version: '1.0.0',
        providers: [expect.objectContaining({ name: 'virtualbox', checksum_type: 'sha256', checksum: sha256(base) })],
      }),
    ]);
    await page.screenshot({ path: join(tmp, 'mirrors.png'), fullPage: true });

    // A box the upstream does not have: the job fails and says why.
    await form.getByLabel('Source').fill('lab/nosuch');
    await form.getByRole('button', { name: 'Create mirror' }).click();
    const failed = page.getByRole('article', { name: 'Mirror lab/nosuch' }).locator('.job[data-state="failed"]');
    await failed.getByRole('alert').filter({ hasText: 'lab/nosuch' }).waitFor({ timeout: 30_000 });

    // Run again: a second job (nothing new to copy) and the older one behind "Show 1 earlier job".
    await card.getByRole('button', { name: 'Run' }).click();
    await card.getByRole('button', { name: 'Show 1 earlier job' }).waitFor({ timeout: 30_000 });
    await card.locator('.job[data-state="done"]').waitFor({ timeout: 60_000 });
  });

  it('shows a running job moving (bytes, rate, ETA) and cancels it', async () => {
    const upstreamForm = page.getByRole('form', { name: 'New upstream' });
    await upstreamForm.getByLabel('Name').fill('slow');
    await upstreamForm.getByLabel('URL').fill(slow.url);
    await upstreamForm.getByRole('button', { name: 'Add upstream' }).click();
    await page.getByRole('row', { name: /slow/ }).waitFor();
    const form = page.getByRole('form', { name: 'New mirror' });
    await form.getByLabel('Upstream', { exact: true }).selectOption({ label: 'slow' });
    await form.getByLabel('Source').fill('lab/slow');
    await form.getByRole('button', { name: 'Create mirror' }).click();

    const card = page.getByRole('article', { name: 'Mirror lab/slow' });
    const job = card.locator('.job[data-state="running"]');
    const bar = job.locator('progress');
    const value = async () => Number((await bar.getAttribute('value')) ?? 0);
    await expect.poll(value, { timeout: 20_000 }).toBeGreaterThan(0);
    const first = await value();
    await expect.poll(value, { timeout: 20_000 }).toBeGreaterThan(first); // the page polls: the bar moves
    expect(await value()).toBeLessThan(1);
    await job.getByText(/\/s$/).waitFor();
    await job.getByText(/^ETA /).waitFor();
    await job.getByText(new RegExp(`of ${(slow.size / 1024 / 1024).toFixed(1)} MiB`)).waitFor();
    await page.screenshot({ path: join(tmp, 'running.png'), fullPage: true });

    await job.getByRole('button', { name: 'Cancel' }).click();
    await card.locator('.job[data-state="cancelled"]').waitFor();
    const jobs = await mirror.http
      .withToken(mirror.adminToken)
      .get(
        `/api/boxyard/mirror-jobs?mirror=${encodeURIComponent((await mirror.http.withToken(mirror.adminToken).get('/api/boxyard/mirrors')).json.mirrors.find((m: { source: string }) => m.source === 'lab/slow').id)}`,
      );
    expect(jobs.json.jobs[0]).toMatchObject({ state: 'cancelled' });
    expect((await mirror.http.withToken(mirror.adminToken).get('/api/v1/box/lab/slow')).status).toBe(404); // a cancelled job publishes nothing
  });

  it('sets the pull-through upstream; a cached box is marked on the Mirrors page and its box page', async () => {
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('link', { name: 'Administration', exact: true }).click();
    const form = page.getByRole('form', { name: 'Pull-through cache' });
    await form.getByLabel('Pull-through upstream').selectOption({ label: `upstream-a (${upstream.url})` });
    await form.getByLabel('Cache max age (minutes)').fill('45');
    await form.getByRole('button', { name: 'Save cache settings' }).click();
    await form.getByText('Saved.').waitFor();
    const settings = (await mirror.http.withToken(mirror.adminToken).get('/api/boxyard/settings')).json.settings;
    expect(settings).toMatchObject({ cache_max_age_minutes: 45 });
    expect(settings.pull_through_upstream_id).toMatch(/^ups-/);

    // A vagrant client asks B for a box only A has: the cache answers and keeps its catalog.
    const catalog = await mirror.http.get('/vendor/other');
    expect(catalog.status, catalog.text).toBe(200);
    await page.getByRole('link', { name: 'Mirrors' }).click();
    const row = page.getByRole('table', { name: 'Cached boxes' }).getByRole('row', { name: /vendor\/other/ });
    await row.getByRole('cell', { name: 'upstream-a' }).waitFor();
    await row.getByRole('cell', { name: '0/1' }).waitFor();
    await row.getByRole('link', { name: 'vendor/other' }).click();
    await page.getByText('cached from upstream-a').waitFor();
  });

  it('imports dropped .box files into a version with an upload progress bar, on the Mirrors page', async () => {
    await page.goto(`${mirror.url}/ui/mirrors`);
    const form = page.getByRole('form', { name: 'Import box files' });
    await form.getByLabel('Owner').selectOption('lab');
    await form.getByLabel('Box name').fill('base');
    const libvirt = await makeBoxFile(join(tmp, 'libvirt.box'), 'libvirt');
    const dropped = await page.evaluateHandle(
      ({ b64, name }) => {
        const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
        const dt = new DataTransfer();
        dt.items.add(new File([bytes], name, { type: 'application/octet-stream' }));
        return dt;
      },
      { b64: libvirt.toString('base64'), name: 'libvirt.box' },
    );
    const zone = page.getByLabel('Drop .box files here');
    await zone.dispatchEvent('dragover', { dataTransfer: dropped });
    await zone.dispatchEvent('drop', { dataTransfer: dropped });
    await page.getByRole('listitem', { name: 'Import libvirt.box' }).waitFor();
    await page.getByLabel('Import version').fill('2.0.0');
    await watchFor(page, 'progress[aria-label="Upload progress"]', 'sawUpload');
    await page.getByRole('button', { name: 'Import 1 file' }).click();
    const item = page.getByRole('listitem', { name: 'Import libvirt.box' });
    await item.getByText(`sha256:${sha256(libvirt)}`).waitFor();
    expect(await sawIt(page, 'sawUpload')).toBe(true);
    await item.getByText(/imported libvirt\/\S+ into lab\/base 2\.0\.0 \(released\)/).waitFor();
    const v = await mirror.http.get('/api/v2/box/lab/base/version/2.0.0');
    expect(v.json).toMatchObject({
      version: '2.0.0',
      status: 'active',
      providers: [expect.objectContaining({ name: 'libvirt', checksum: sha256(libvirt) })],
    });
    await page.screenshot({ path: join(tmp, 'import.png'), fullPage: true });

    // The same provider again: the daemon refuses (422) and the file's row says why.
    await page
      .getByLabel('Choose .box files')
      .setInputFiles({ name: 'again.box', mimeType: 'application/octet-stream', buffer: libvirt });
    await page.getByRole('button', { name: 'Import 1 file' }).click();
    await page.getByRole('listitem', { name: 'Import again.box' }).getByRole('alert').waitFor();

    // Into a new box.
    await form.getByRole('button', { name: 'Clear' }).click();
    await form.getByLabel('Box name').fill('imported');
    await form.getByLabel('Choose .box files').setInputFiles({
      name: 'qemu.box',
      mimeType: 'application/octet-stream',
      buffer: await makeBoxFile(join(tmp, 'qemu.box'), 'qemu'),
    });
    await form.getByLabel('Import version').fill('0.1.0');
    await form.getByLabel('Release it').uncheck();
    await form.getByRole('button', { name: 'Import 1 file' }).click();
    await form.getByText(/imported qemu\/\S+ into lab\/imported 0\.1\.0/).waitFor();
    const created = await mirror.http.withToken(mirror.adminToken).get('/api/v1/box/lab/imported');
    expect(created.json).toMatchObject({
      tag: 'lab/imported',
      versions: [expect.objectContaining({ version: '0.1.0', status: 'unreleased' })],
    });
  });

  it('switches offline and back: the header shows an Offline badge meanwhile', async () => {
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('link', { name: 'Administration', exact: true }).click();
    const badge = page.locator('.topbar').getByText('Offline', { exact: true });
    expect(await badge.count()).toBe(0);
    await page.getByRole('button', { name: 'Go offline' }).click();
    await badge.waitFor();
    await page.getByRole('button', { name: 'Go online' }).waitFor();
    expect((await mirror.http.withToken(mirror.adminToken).get('/api/boxyard/settings')).json.settings).toMatchObject({
      offline: true,
    });
    await page.screenshot({ path: join(tmp, 'offline.png'), fullPage: true });
    await page.getByRole('button', { name: 'Go online' }).click();
    await badge.waitFor({ state: 'detached' });
    expect((await mirror.http.withToken(mirror.adminToken).get('/api/boxyard/settings')).json.settings).toMatchObject({
      offline: false,
    });
  });

  it('started with --offline: the badge shows and the switch is disabled with the reason', async () => {
    const forced = await startTestDaemon({ config: { offline: true } });
    try {
      const other = await browser.newPage();
      await signIn(other, forced.url, ADMIN.username, ADMIN.password);
      await other.locator('.topbar').getByText('Offline', { exact: true }).waitFor();
      await other.getByRole('link', { name: 'Settings' }).click();
      await other.getByRole('link', { name: 'Administration', exact: true }).click();
      expect(await other.getByRole('button', { name: 'Go online' }).isDisabled()).toBe(true);
      await other.getByText('The daemon was started with').waitFor();
      await other.close();
    } finally {
      await forced.stop();
    }
    process.stdout.write(`mirroring UI screenshots: ${tmp}\n`);
  });
});
