import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient } from '../helpers/http';
import { publishHosted, sha256, staticServer } from '../helpers/mirror';
import { rawGet } from '../helpers/upload';
import { chromiumAvailable, ensureUiBuilt, launchChromium, signIn } from '../helpers/ui-browser';

const haveChromium = chromiumAvailable('The mirrors page test');

// Skipped only off CI without Chromium; under CI=true chromiumAvailable() throws instead.
describe.skipIf(!haveChromium)(
  'the mirrors page: connection tests, jobs, schedules, the cache, folders (headless Chromium)',
  () => {
    let upstream: TestDaemon; // holds the original boxes
    let daemon: TestDaemon; // the daemon the browser drives
    let http: HttpClient;
    let browser: Browser;
    let page: Page;
    let cspViolations: string[] = [];
    let deadUrl: string;
    const file = Buffer.alloc(200_000, 9);
    const other = Buffer.alloc(100_000, 4);
    const tmp = mkdtempSync(join(tmpdir(), 'boxyard-ui-mirrors-'));

    beforeAll(async () => {
      ensureUiBuilt();
      [upstream, daemon] = await Promise.all([startTestDaemon(), startTestDaemon()]);
      http = daemon.http.withToken(daemon.adminToken);
      const a = upstream.http.withToken(upstream.adminToken);
      for (const org of ['lab', 'vendor'])
        expect((await a.post('/api/boxyard/organizations', { organization: { name: org } })).status).toBeLessThan(300);
      await publishHosted(a, 'lab', 'base', '1.0.0', file);
      await publishHosted(a, 'vendor', 'other', '0.1.0', other);
      const dead = await staticServer();
      deadUrl = dead.url;
      await dead.close();
      ({ browser, page, cspViolations } = await launchChromium());
      page.on('dialog', (d) => void d.accept());
      await signIn(page, daemon.url, ADMIN.username, ADMIN.password);
      await page.getByRole('heading', { name: 'Boxes' }).waitFor();
      await page.getByRole('link', { name: 'Mirrors' }).click();
      await page.getByRole('heading', { name: 'Mirrors', level: 1 }).waitFor();
    });
    afterEach(() => {
      expect(cspViolations).toEqual([]);
    });
    afterAll(async () => {
      await browser?.close();
      await Promise.all([upstream?.stop(), daemon?.stop()]);
    });

    const addUpstream = async (name: string, url: string) => {
      const form = page.getByRole('form', { name: 'New upstream' });
      await form.getByLabel('Name').fill(name);
      await form.getByLabel('URL').fill(url);
      await form.getByRole('button', { name: 'Add upstream' }).click();
      return page.getByRole('table', { name: 'Upstreams' }).getByRole('row', { name: new RegExp(`^${name} `) });
    };

    it("tests an upstream connection: ok for a daemon that answers; red, in the network's words, for one that does not", async () => {
      const good = await addUpstream('origin', upstream.url);
      await good.getByRole('button', { name: 'Test connection to origin' }).click();
      await good
        .getByRole('status', { name: 'Connection test: ok' })
        .getByText(/Upstream "origin" answered/)
        .waitFor();

      const bad = await addUpstream('dead', deadUrl);
      await expect.poll(() => bad.locator('.badge').textContent()).toBe('ok');
      await bad.getByRole('button', { name: 'Test connection to dead' }).click();
      await bad.getByRole('status', { name: 'Connection test: failed' }).waitFor();
      // Red, and why in the network's words, said once (not the raw code, not "fetch failed").
      const why = `Cannot reach upstream "dead": nothing answers at ${new URL(deadUrl).host} (the connection was refused)`;
      await bad.getByText(why).waitFor();
      expect(await bad.getByText(why).count()).toBe(1);
      expect(await bad.locator('.badge').textContent()).toBe('failing');
      expect(await bad.locator('.badge').getAttribute('class')).toContain('badge-errored');
      expect(await bad.textContent()).not.toMatch(/upstream_failed|fetch failed/);
      // The failure counts against its breaker, as any request's would.
      await bad.getByText('1 of 3 failures before a pause').waitFor();

      // Port 1 is one Node's fetch refuses ("bad port"): the row says what to do instead.
      const blocked = await addUpstream('port-one', 'http://127.0.0.1:1');
      await blocked.getByRole('button', { name: 'Test connection to port-one' }).click();
      await blocked.getByText(/Boxyard does not connect to port 1 \(127\.0\.0\.1:1\)/).waitFor();
      expect(await blocked.textContent()).not.toMatch(/bad port/);
      expect(await blocked.locator('.badge').textContent()).toBe('failing');
    });

    it("shows each field's rule before typing, and what is wrong beside that field", async () => {
      const form = page.getByRole('form', { name: 'New upstream' });
      // The breaker's numbers say what they do and what empty means; no value-like placeholders.
      for (const label of ['Timeout (seconds)', 'Failures before pausing', 'Pause after those failures (minutes)'])
        expect(await form.getByLabel(label).getAttribute('placeholder')).toBeNull();
      expect(await form.getByLabel('Failures before pausing').getAttribute('aria-describedby')).toBeTruthy();
      await form.getByText(/After this many failures in a row \(1 to 1000\).*Empty: 3 failures\./).waitFor();
      await form.getByText(/before it tries the upstream again\. Empty: 5 minutes\./).waitFor();

      // A rule of the contract, checked before sending: the words sit under the field at fault.
      await form.getByLabel('URL').fill('http://127.0.0.1:9/');
      await form.getByLabel('Timeout (seconds)').fill('0');
      await form.getByRole('button', { name: 'Add upstream' }).click();
      const timeout = form.locator('.field', { has: page.getByLabel('Timeout (seconds)') });
      await timeout.getByRole('alert').getByText('Must be at least 1').waitFor();
      expect(await form.getByLabel('Timeout (seconds)').getAttribute('aria-invalid')).toBe('true');
      // A rule only the daemon checks: its refusal, in words, beside the URL (no "Invalid request body").
      await form.getByLabel('Timeout (seconds)').fill('');
      await form.getByLabel('URL').fill('ftp://boxes');
      await form.getByRole('button', { name: 'Add upstream' }).click();
      const url = form.locator('.field', { has: page.getByLabel('URL') });
      await url
        .getByRole('alert')
        .getByText('The URL must be an http or https URL, a file: URL or an absolute folder path.')
        .waitFor();
      expect(await form.textContent()).not.toMatch(/Invalid request body|upstream\.url/);
      await form.getByLabel('URL').fill('');

      // One primary action per card on this page.
      for (const card of await page.locator('section.card').all())
        expect(await card.locator('button.primary, a.primary').count()).toBeLessThanOrEqual(1);
    });

    it('a failed job shows no bar and no link to a box it never made; a missing box page answers at once', async () => {
      const form = page.getByRole('form', { name: 'New mirror' });
      await form.getByLabel('Upstream', { exact: true }).selectOption({ label: 'origin' });
      await form.getByLabel('Source').fill('lab/nosuch');
      await form.getByRole('button', { name: 'Create mirror' }).click();
      const card = page.getByRole('article', { name: 'Mirror lab/nosuch' });
      const failed = card.locator('.job[data-state="failed"]');
      await failed.getByRole('alert').filter({ hasText: 'lab/nosuch' }).waitFor({ timeout: 30_000 });
      expect(await failed.locator('progress').count()).toBe(0);
      await card.getByText('(not made yet)').waitFor();
      expect(await card.getByRole('link', { name: 'lab/nosuch' }).count()).toBe(0);

      // The box page of a box that does not exist asks the daemon once and says so (no retries behind "Loading").
      const asked: string[] = [];
      const count = (r: { url(): string }) => {
        if (r.url().includes('/api/v1/box/lab/nosuch')) asked.push(r.url());
      };
      page.on('request', count);
      await page.goto(`${daemon.url}/ui/boxes/lab/nosuch`);
      await page
        .getByRole('alert')
        .getByText(/not found|no longer exists/i)
        .waitFor();
      page.off('request', count);
      expect(asked.filter((u) => !u.includes('/stats'))).toHaveLength(1);
      await page.goto(`${daemon.url}/ui/mirrors`);
      await page.getByRole('heading', { name: 'Mirrors', level: 1 }).waitFor();
    });

    it('starts a mirror job that completes, runs it again, and changes its schedule', async () => {
      const form = page.getByRole('form', { name: 'New mirror' });
      await form.getByLabel('Upstream', { exact: true }).selectOption({ label: 'origin' });
      await form.getByLabel('Source').fill('lab/base');
      await form.getByRole('button', { name: 'Create mirror' }).click();
      const card = page.getByRole('article', { name: 'Mirror lab/base' });
      await card.locator('.job[data-state="done"]').waitFor({ timeout: 60_000 });
      await card.getByText('files 1/1').waitFor();
      expect((await http.get('/api/v1/box/lab/base/version/1.0.0/provider/virtualbox/amd64')).json).toMatchObject({
        checksum: sha256(file),
      });

      await card.getByRole('button', { name: 'Run again' }).click();
      await card.getByRole('button', { name: 'Show 1 earlier job' }).waitFor({ timeout: 30_000 });
      await card.locator('.job[data-state="done"]').first().waitFor({ timeout: 60_000 });

      await card.getByRole('button', { name: 'Change the schedule of lab/base' }).click();
      const schedule = card.getByRole('form', { name: 'Schedule of lab/base' });
      await schedule.getByLabel('Every (minutes)').fill('90');
      await schedule.getByRole('button', { name: 'Save schedule' }).click();
      await card.getByText(/every 90 min, next/).waitFor();
      const mirrors = await http.get('/api/boxyard/mirrors');
      expect(mirrors.json.mirrors.find((m: { source: string }) => m.source === 'lab/base')).toMatchObject({
        interval_minutes: 90,
      });
    });

    it("shows the pull-through cache's size and purges it", async () => {
      const upstreams = await http.get('/api/boxyard/upstreams');
      const origin = upstreams.json.upstreams.find((u: { name: string }) => u.name === 'origin');
      expect(
        (await http.put('/api/boxyard/settings', { settings: { pull_through_upstream_id: origin.id } })).status,
      ).toBe(200);
      const catalog = await daemon.http.get('/vendor/other');
      expect(catalog.status, catalog.text).toBe(200);
      expect(sha256((await rawGet(catalog.json.versions[0].providers[0].url)).body)).toBe(sha256(other));
      await expect
        .poll(async () => (await http.get('/api/boxyard/cache/size')).json.cache.files, { timeout: 10_000 })
        .toBe(1);

      await page.reload();
      await page.getByLabel('Cache size').getByText('1 box, 1 file stored, 97.7 KiB').waitFor();
      await page
        .getByRole('table', { name: 'Cached boxes' })
        .getByRole('row', { name: /vendor\/other/ })
        .waitFor();
      await page.getByRole('button', { name: 'Purge cache' }).click();
      await page
        .getByRole('status')
        .getByText(/Purged 1 box \(97\.7 KiB\)/)
        .waitFor();
      await page.getByLabel('Cache size').getByText('0 boxes, 0 files stored').waitFor();
      expect((await http.get('/api/v1/box/vendor/other')).status).toBe(404);
    });

    it('exports a box into a folder on the daemon and imports that folder as mirror jobs', async () => {
      const out = join(tmp, 'usb');
      const exporting = page.getByRole('form', { name: 'Export to a folder' });
      await exporting.getByLabel('Boxes').fill('lab/base');
      await exporting.getByLabel("Folder on the daemon's machine").fill(out);
      await exporting.getByRole('button', { name: 'Export' }).click();
      await exporting.getByRole('status').getByText(`Exported 1 file (195.3 KiB) to ${out}.`).waitFor();
      expect(existsSync(join(out, 'boxyard-export.json'))).toBe(true);

      // Back into the same daemon: the folder becomes an upstream ("usb") with a mirror of lab/base,
      // whose job finds 1.0.0 already here and is done without copying it again.
      const importing = page.getByRole('form', { name: 'Import an export folder' });
      await importing.getByLabel("Export folder on the daemon's machine").fill(out);
      await importing.getByRole('button', { name: 'Import folder' }).click();
      await importing
        .getByRole('status')
        .getByText(/Importing lab\/base/)
        .waitFor();
      const card = page.getByRole('article', { name: 'Mirror lab/base' }).filter({ hasText: 'usb: lab/base' });
      await card.locator('.job[data-state="done"]').waitFor({ timeout: 60_000 });

      // A bad folder says why, next to the form.
      await importing.getByLabel("Export folder on the daemon's machine").fill(tmp);
      await importing.getByRole('button', { name: 'Import folder' }).click();
      await importing
        .getByRole('alert')
        .getByText(/holds no boxyard-export\.json/)
        .waitFor();
    });

    it("shows a mirror paused because the user it runs as left the target's organization, and resumes it with the viewer's rights", async () => {
      // Rights checked when used: bob's mirror into team, whose run after his removal publishes nothing and pauses.
      expect(
        (await http.put('/api/boxyard/settings', { settings: { mirror_allowed_hosts: ['127.0.0.1'] } })).status,
      ).toBe(200);
      expect((await http.post('/api/boxyard/organizations', { organization: { name: 'team' } })).status).toBe(201);
      const bob = (await daemon.user('bob')).http;
      expect(
        (await http.put('/api/boxyard/organizations/team/members/bob', { member: { role: 'member' } })).status,
      ).toBe(200);
      const made = await bob.post('/api/boxyard/mirrors', {
        mirror: { upstream: { url: upstream.url }, source: 'vendor/other', target: 'team/other', run: false },
      });
      expect(made.status, made.text).toBe(201);
      expect((await http.delete('/api/boxyard/organizations/team/members/bob')).status).toBe(204);
      const run = await http.post(`/api/boxyard/mirrors/${made.json.mirror.id}/run`);
      await expect
        .poll(async () => (await http.get(`/api/boxyard/mirror-jobs/${run.json.job.id}`)).json.job.state, {
          timeout: 30_000,
        })
        .toBe('failed');

      await page.reload();
      const card = page.getByRole('article', { name: 'Mirror vendor/other' });
      await card
        .getByRole('status')
        .getByText(/^Paused: bob may no longer publish boxes in "team"/)
        .waitFor();
      await card.getByText(/runs as bob/).waitFor();
      expect(await card.getByRole('button', { name: 'Run again' }).count()).toBe(0);
      await card.getByRole('button', { name: 'Resume with my rights' }).click();
      await card.getByRole('button', { name: 'Run again' }).waitFor();
      await card.getByText(/runs as admin/).waitFor();
      expect(await card.getByRole('status').count()).toBe(0);
      expect((await http.get(`/api/boxyard/mirrors/${made.json.mirror.id}`)).json.mirror).toMatchObject({
        runs_as: 'admin',
        paused: null,
      });
    });
  },
);
