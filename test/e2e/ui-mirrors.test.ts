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

    it('tests an upstream connection: ok for a daemon that answers, the failure and its code for one that does not', async () => {
      const good = await addUpstream('origin', upstream.url);
      await good.getByRole('button', { name: 'Test connection to origin' }).click();
      await good
        .getByRole('status', { name: 'Connection test: ok' })
        .getByText(/Upstream "origin" answered/)
        .waitFor();

      const bad = await addUpstream('dead', deadUrl);
      await bad.getByRole('button', { name: 'Test connection to dead' }).click();
      const failed = bad.getByRole('status', { name: 'Connection test: failed' });
      await failed.getByText('upstream_failed').waitFor();
      await failed.getByText(/Cannot reach upstream "dead"/).waitFor();
      // The failure counts against its breaker, as any request's would.
      await bad.getByText('1/3 failures').waitFor();
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
