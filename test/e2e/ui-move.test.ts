import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient } from '../helpers/http';
import { allowHcpStorage, startHcpUpstream, type HcpBox, type HcpUpstream } from '../helpers/hcp-upstream';
import { chromiumAvailable, ensureUiBuilt, launchChromium, signIn, watchCsp } from '../helpers/ui-browser';

// In the web UI: "Move from HCP Vagrant" (plan, copy, the lines for users) against a
// local fake of HCP Vagrant; the box page of a mirrored box; Settings' allowed upstream hosts.
// Nothing leaves 127.0.0.1: the browser resolves no other name and any other request is aborted
// and fails the test, and every plan and mirror the page sends names the fake, never the
// vagrantcloud.com the URL field starts with.

const haveChromium = chromiumAvailable('The Move from HCP Vagrant UI test');
const TOKEN = 'hcp-move-token';
const amd = randomBytes(60_000);
const arm = randomBytes(30_000);

const hcpBox = (name: string, extra: Partial<HcpBox> = {}): HcpBox => ({
  org: 'hashi',
  name,
  private: false,
  short_description: `${name}: a base box`,
  description: `# ${name}\n\nBuilt with *Packer*.`,
  versions: [
    {
      version: '1.0.0',
      status: 'active',
      description: 'First release.',
      providers: [{ name: 'virtualbox', architecture: 'amd64', default_architecture: true, file: amd }],
    },
    {
      version: '1.1.0',
      status: 'active',
      description: 'Adds arm64.',
      providers: [
        { name: 'virtualbox', architecture: 'amd64', default_architecture: true, file: amd },
        { name: 'virtualbox', architecture: 'arm64', file: arm, checksum_type: 'sha512' },
      ],
    },
  ],
  ...extra,
});

// Skipped only off CI without Chromium; under CI=true chromiumAvailable() throws instead.
describe.skipIf(!haveChromium)('Move from HCP Vagrant in the web UI (headless Chromium)', () => {
  let hcp: HcpUpstream;
  let d: TestDaemon;
  let admin: HttpClient;
  let browser: Browser;
  let page: Page;
  let csp: string[] = [];
  /** Requests the browser tried to send anywhere but 127.0.0.1 (aborted), and uncaught page errors. */
  const problems: string[] = [];
  /** The upstream URL of every plan and mirror the page asked the daemon for. */
  const upstreamsSent: string[] = [];
  const shots = mkdtempSync(join(tmpdir(), 'boxyard-move-ui-'));
  const form = () => page.getByRole('form', { name: 'Move from HCP Vagrant' });

  /** Only 127.0.0.1 for this context's pages; what the Move page sends the daemon is recorded. */
  async function guard(context: BrowserContext): Promise<void> {
    await context.route(
      (url) => url.hostname !== '127.0.0.1',
      (route) => {
        problems.push(`off-host request: ${route.request().url()}`);
        return route.abort();
      },
    );
    context.on('request', (r) => {
      if (r.method() === 'POST' && /^\/api\/boxyard\/(mirror-plans|mirrors)$/.test(new URL(r.url()).pathname)) {
        upstreamsSent.push(
          (JSON.parse(r.postData() ?? '{}') as { mirror?: { upstream?: { url?: string } } }).mirror?.upstream?.url ??
            '(none)',
        );
      }
    });
    context.on('page', (p) => p.on('pageerror', (e) => problems.push(`page error: ${e.message}`)));
  }

  async function fillForm(token: string, org = 'hashi'): Promise<void> {
    await form().getByLabel('HCP Vagrant / Vagrant Cloud URL').fill(hcp.url);
    await form().getByLabel('HCP token').fill(token);
    await form().getByLabel('HCP organization').fill(org);
  }

  const nothingMade = async () => {
    expect((await admin.get('/api/boxyard/mirrors')).json.mirrors).toEqual([]);
    expect((await admin.get('/api/boxyard/upstreams')).json.upstreams).toEqual([]);
  };

  beforeAll(async () => {
    ensureUiBuilt();
    hcp = await startHcpUpstream({
      token: TOKEN,
      boxes: [hcpBox('web'), hcpBox('secret', { private: true }), hcpBox('hidden', { hiddenFromToken: true })],
    });
    d = await startTestDaemon();
    admin = d.http.withToken(d.adminToken);
    await allowHcpStorage(admin);
    ({
      browser,
      page,
      cspViolations: csp,
    } = await launchChromium(['--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1']));
    await guard(page.context());
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: d.url });
  });
  afterEach(() => {
    const seen = {
      csp: csp.splice(0),
      problems: problems.splice(0),
      upstreams: upstreamsSent.filter((u) => u !== hcp.url),
    };
    expect(seen).toEqual({ csp: [], problems: [], upstreams: [] });
  });
  afterAll(async () => {
    await browser?.close();
    await Promise.all([d?.stop(), hcp?.stop()]);
    process.stdout.write(`Move from HCP Vagrant screenshots: ${shots}\n`);
  });

  it('opens from the Overview and the Mirrors page, under Mirrors, with vagrantcloud.com in the URL field', async () => {
    await signIn(page, d.url, ADMIN.username, ADMIN.password, '/overview');
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Move from HCP Vagrant' }).click();
    await page.getByRole('heading', { name: 'Move from HCP Vagrant', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/ui/mirrors/move');
    expect(await page.locator('.topbar nav a.active').textContent()).toBe('Mirrors');
    expect(await form().getByLabel('HCP Vagrant / Vagrant Cloud URL').inputValue()).toBe('https://vagrantcloud.com');
    expect(await form().getByLabel('HCP token').getAttribute('type')).toBe('password');
    expect(await form().getByLabel('Parallel downloads').inputValue()).toBe('4');
    expect(
      await form()
        .getByRole('radio', { name: /As HCP Vagrant says/ })
        .isChecked(),
    ).toBe(true);

    await page.getByRole('link', { name: 'All mirrors' }).click();
    await page.getByRole('heading', { name: 'Mirrors', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Move from HCP Vagrant' }).click();
    await form().waitFor();
    await page.goto(`${d.url}/ui/move`); // the short address
    await form().waitFor();
    expect(new URL(page.url()).pathname).toBe('/ui/mirrors/move');
  });

  it('a token HCP Vagrant refuses: its words show beside the form, and nothing is made', async () => {
    await fillForm('not-the-token');
    await form().getByRole('button', { name: 'See the plan' }).click();
    await form().getByRole('alert').filter({ hasText: 'Invalid authentication token' }).waitFor();
    expect(await page.getByRole('table', { name: 'Boxes to copy' }).count()).toBe(0);
    await nothingMade();
  });

  it('the plan: each box, the one the token may not see and why, the totals, and that it fits', async () => {
    await fillForm(TOKEN);
    await form().getByRole('button', { name: 'See the plan' }).click();
    const boxes = page.getByRole('table', { name: 'Boxes to copy' });
    const web = boxes.getByRole('row', { name: /hashi\/web/ });
    await web.getByRole('cell', { name: 'public' }).waitFor();
    await web.getByRole('cell', { name: '1.1.0, 1.0.0' }).waitFor();
    await web.getByRole('cell', { name: '3', exact: true }).waitFor();
    await web.getByRole('cell', { name: '146.5 KiB' }).waitFor();
    await boxes
      .getByRole('row', { name: /hashi\/secret/ })
      .getByRole('cell', { name: 'private' })
      .waitFor();
    expect(await boxes.getByRole('row').count()).toBe(3); // the header and two boxes
    await page
      .getByRole('list', { name: 'Skipped boxes' })
      .getByRole('listitem')
      .filter({ hasText: 'hashi/hidden' })
      .filter({ hasText: '403' })
      .waitFor();
    // The token check's line (test/mirror/token-check.test.ts: an upstream that cannot check tokens).
    await page.getByText('Token check: it accepted the token.', { exact: true }).waitFor();
    const totals = page.getByRole('group', { name: 'Totals' });
    // Each figure and its label, as shown one under the other.
    expect((await totals.locator('span').allTextContents()).join(' ')).toBe(
      '2 boxes 4 versions 6 files 293.0 KiB in all',
    );
    await page
      .getByRole('status')
      .filter({ hasText: /^Fits on disk: 293\.0 KiB to fetch; free now .+, after .+; 512\.0 MiB kept in reserve\.$/ })
      .waitFor();
    await nothingMade();

    // A change to the form drops the plan: what starts is always what was planned.
    await form().getByLabel('Parallel downloads').fill('2');
    await boxes.waitFor({ state: 'detached' });
    await form()
      .getByRole('checkbox', { name: /Follow revocations/ })
      .check();
    await form().getByLabel('Check again every (hours)').fill('6');
    await form().getByRole('button', { name: 'See the plan' }).click();
    await boxes.waitFor();
    await page.screenshot({ path: join(shots, 'plan.png'), fullPage: true });
  });

  it('starts the copy, follows it to done, and shows what was published and the lines for users', async () => {
    await page.getByRole('button', { name: 'Start the copy' }).click();
    await page.waitForURL(/\?job=/);
    const job = page.locator('.job[data-state="done"]');
    await job.waitFor({ timeout: 60_000 });
    await job.getByText('files 6/6').waitFor();
    expect(await page.getByRole('button', { name: 'Start the copy' }).isDisabled()).toBe(true);

    const published = page.getByRole('table', { name: 'Published boxes' });
    await published
      .getByRole('row', { name: /hashi\/web/ })
      .getByRole('cell', { name: '1.1.0, 1.0.0' })
      .waitFor();
    await published.getByRole('row', { name: /hashi\/secret/ }).waitFor();
    const lines = page.getByLabel('Lines for your users', { exact: true });
    const text = await lines.textContent();
    expect(text).toContain(`export VAGRANT_SERVER_URL=${d.url}\n`);
    expect(text).toContain('export VAGRANT_CLOUD_TOKEN='); // hashi/secret is private
    expect(text).toMatch(new RegExp(`config\\.vm\\.box_url = "${d.url}/hashi/(web|secret)"`));
    await page.locator('.copy-field', { has: lines }).getByRole('button', { name: 'Copy' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(text);

    // What the page made: one mirror of the organization, as the form said.
    const mirrors = (await admin.get('/api/boxyard/mirrors')).json.mirrors;
    expect(mirrors).toEqual([
      expect.objectContaining({
        source: 'hashi',
        target: 'hashi',
        private: null,
        follow_revocations: true,
        parallel: 2,
        interval_minutes: 360,
      }),
    ]);
    expect((await admin.get('/api/v1/box/hashi/secret')).json).toMatchObject({
      private: true,
      short_description: 'secret: a base box',
    });
    await page.screenshot({ path: join(shots, 'done.png'), fullPage: true });

    // The job is in the address: a reload shows it again, and the page fits a phone.
    await page.reload();
    await page.getByRole('table', { name: 'Published boxes' }).waitFor();
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(
        0,
      );
      await page.screenshot({ path: join(shots, 'done-phone.png'), fullPage: true });
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });

  it('the box page of a mirrored box says which fields follow the upstream and which were edited here', async () => {
    await page.getByRole('table', { name: 'Published boxes' }).getByRole('link', { name: 'hashi/web' }).click();
    const note = page.getByRole('note', { name: 'Mirrored box' });
    await note
      .getByText(
        /^Follows its upstream \(synced .+\): short description from upstream · description from upstream · visibility from upstream$/,
      )
      .waitFor();
    expect(await page.getByText('notes edited here').count()).toBe(0);

    expect((await admin.put('/api/v1/box/hashi/web', { box: { short_description: 'Our own words' } })).status).toBe(
      200,
    );
    expect(
      (await admin.put('/api/v1/box/hashi/web/version/1.0.0', { version: { description: 'Our notes.' } })).status,
    ).toBe(200);
    await page.reload();
    const edited = note.getByText('short description edited here', { exact: true });
    await edited.waitFor();
    expect(await edited.getAttribute('title')).toMatch(/later runs of the mirror leave it/);
    await note.getByText('description from upstream', { exact: true }).waitFor();
    await page.getByRole('article', { name: 'Version 1.0.0' }).getByText('notes edited here').waitFor();
    expect(await page.getByRole('article', { name: 'Version 1.1.0' }).getByText('notes edited here').count()).toBe(0);
    await page.screenshot({ path: join(shots, 'box.png'), fullPage: true });
  });

  it('a plan that does not fit the disk says so, and the copy cannot start', async () => {
    const tight = await startTestDaemon({ config: { diskReserveMb: 10_000_000 } });
    await allowHcpStorage(tight.http.withToken(tight.adminToken));
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      await guard(context);
      const other = await context.newPage();
      const otherCsp = await watchCsp(other);
      await signIn(other, tight.url, ADMIN.username, ADMIN.password, '/mirrors/move');
      const f = other.getByRole('form', { name: 'Move from HCP Vagrant' });
      await f.getByLabel('HCP Vagrant / Vagrant Cloud URL').fill(hcp.url);
      await f.getByLabel('HCP token').fill(TOKEN);
      await f.getByLabel('HCP organization').fill('hashi');
      await f.getByLabel('Copy into (optional)').fill('lab');
      await f.getByRole('radio', { name: 'All public' }).check();
      await f.getByRole('button', { name: 'See the plan' }).click();
      await other.getByRole('heading', { name: 'The plan: hashi → lab' }).waitFor();
      await other
        .getByRole('alert')
        .filter({
          hasText: /^Does NOT fit on disk: 293\.0 KiB to fetch; free now .+, after .+; 9\.5 TiB kept in reserve\./,
        })
        .waitFor();
      const secret = other.getByRole('table', { name: 'Boxes to copy' }).getByRole('row', { name: /lab\/secret/ });
      await secret.getByText('from hashi/secret').waitFor();
      await secret.getByRole('cell', { name: 'public' }).waitFor();
      expect(await other.getByRole('button', { name: 'Start the copy' }).isDisabled()).toBe(true);
      expect((await tight.http.withToken(tight.adminToken).get('/api/boxyard/mirrors')).json.mirrors).toEqual([]);
      expect(otherCsp).toEqual([]);
    } finally {
      await context.close();
      await tight.stop();
    }
  });

  it('Settings: the hosts upstreams of other users may reach, one a line; an entry the daemon cannot read shows its words', async () => {
    await page.goto(`${d.url}/ui/settings/administration`);
    const hostsForm = page.getByRole('form', { name: 'Allowed upstream hosts' });
    await hostsForm
      .getByText(
        'Upstreams made by users who are not administrators may reach only public addresses and these hosts or networks.',
      )
      .waitFor();
    const field = hostsForm.getByLabel('Allowed hosts and networks');
    // The button is enabled once the stored settings arrived (they fill the field).
    await expect.poll(() => hostsForm.getByRole('button', { name: 'Save allowed hosts' }).isEnabled()).toBe(true);
    await field.fill('192.168.1.20\n 10.0.0.0/8 \n\nboxyard.lab\n*.lab');
    await hostsForm.getByRole('button', { name: 'Save allowed hosts' }).click();
    await hostsForm.getByText('Saved.').waitFor();
    const allowed = ['192.168.1.20', '10.0.0.0/8', 'boxyard.lab', '*.lab'];
    expect((await admin.get('/api/boxyard/settings')).json.settings.mirror_allowed_hosts).toEqual(allowed);

    await field.fill('192.168.1.20\nnot a host!');
    await hostsForm.getByRole('button', { name: 'Save allowed hosts' }).click();
    await hostsForm.getByRole('alert').filter({ hasText: '"not a host!"' }).waitFor();
    expect((await admin.get('/api/boxyard/settings')).json.settings.mirror_allowed_hosts).toEqual(allowed);
    await page.reload();
    await expect.poll(() => page.getByLabel('Allowed hosts and networks').inputValue()).toBe(allowed.join('\n'));
    await page.screenshot({ path: join(shots, 'settings.png'), fullPage: true });
  });
});
