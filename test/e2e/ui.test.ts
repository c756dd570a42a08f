import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import * as OTPAuth from 'otpauth';
import tar from 'tar-stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startTestDaemon, type TestDaemon } from '../helpers/daemon';
import { chromiumAvailable, ensureUiBuilt, launchChromium, signIn } from '../helpers/ui-browser';

const haveChromium = chromiumAvailable('The UI end-to-end test');

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
describe.skipIf(!haveChromium)('web UI in headless Chromium', () => {
  let daemon: TestDaemon;
  let browser: Browser;
  let page: Page;
  let cspViolations: string[] = [];
  const shots = mkdtempSync(join(tmpdir(), 'boxyard-ui-shots-'));

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
    await page.getByLabel('Name', { exact: true }).fill('e2e-box');
    await page.getByLabel('Short description').fill('Made by the UI test');
    await page.getByRole('button', { name: 'Create box' }).click();
    await page.getByRole('heading', { name: `${ADMIN.username}/e2e-box` }).waitFor();

    await page.getByPlaceholder('Version, e.g. 1.0.0').fill('1.0.0');
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
    await page.getByPlaceholder('Version, e.g. 1.0.0').fill('1.1.0');
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

  it('creates an organization, an agent pool and a token whose secret is shown once', async () => {
    await page.getByRole('link', { name: 'Organizations' }).click();
    const newOrg = page.getByRole('form', { name: 'New organization' });
    // The name's rule is there before typing; a name that breaks it is refused beside the field, in words.
    await newOrg.getByText(/^Up to 64 letters, numbers, "-", "_" and "\.", starting with a letter or number/).waitFor();
    await newOrg.getByLabel('Name').fill('e2e org!');
    await page.getByRole('button', { name: 'Create organization' }).click();
    await newOrg
      .locator('.field', { has: page.getByLabel('Name') })
      .getByRole('alert')
      .getByText('May contain only letters, numbers, "-", "_" and "." and must start with a letter or number')
      .waitFor();
    expect(await page.locator('main').textContent()).not.toMatch(/Invalid request body|organization\.name/);
    await newOrg.getByLabel('Name').fill('e2e-org');
    await page.getByRole('button', { name: 'Create organization' }).click();
    await page.getByRole('link', { name: 'e2e-org' }).waitFor();

    await page.getByRole('link', { name: 'Agent pools' }).click();
    await page.getByPlaceholder('Pool name').fill('e2e-pool');
    await page.getByRole('button', { name: 'Create pool' }).click();
    await page.getByRole('link', { name: 'e2e-pool' }).click();
    await page.getByRole('heading', { name: 'e2e-org / e2e-pool' }).waitFor();

    await page.getByPlaceholder('Description').fill('lab agents');
    await page.getByRole('button', { name: 'Create token' }).click();
    const secret = (await page.getByLabel('agent token', { exact: true }).textContent()) ?? '';
    expect(secret.length).toBeGreaterThan(20);
    await page.getByRole('cell', { name: 'lab agents' }).waitFor();

    // An agent registers with the token: the page polls and shows it live, then lets an exited one be deleted.
    const agentHttp = daemon.http.withToken(secret);
    const reg = await agentHttp.post('/api/agent/register', { name: 'e2e-agent' });
    expect(reg.status).toBe(201);
    const agentRow = page.getByRole('row', { name: /e2e-agent/ });
    await agentRow.getByText('idle', { exact: true }).waitFor();
    expect((await agentHttp.post(`/api/agent/agents/${reg.json.agent.id}/status`, { status: 'exited' })).status).toBe(
      200,
    );
    await agentRow.getByText('exited', { exact: true }).waitFor();
    await page.screenshot({ path: join(shots, 'pool.png'), fullPage: true });
    await agentRow.getByRole('button', { name: 'Delete' }).click();
    await agentRow.waitFor({ state: 'detached' });
  });

  it('runs a workspace on the pool and limits the pool to that workspace', async () => {
    const admin = daemon.http.withToken(daemon.adminToken).withContentType('application/vnd.api+json');
    const pools = await admin.get('/api/v2/organizations/e2e-org/agent-pools');
    expect(pools.status, pools.text).toBe(200);
    const poolId: string = pools.json.data[0].id;

    await page.getByRole('link', { name: 'Organizations' }).click();
    await page.getByRole('link', { name: 'e2e-org' }).click();
    await page.getByPlaceholder('Workspace name').fill('e2e-ws');
    await page.getByRole('button', { name: 'Create workspace' }).click();
    // Made without a mode, it takes the organization's defaults; a pool makes it its own, and back.
    const row = page.getByRole('row', { name: /e2e-ws/ });
    await row.getByText('inherited from the organization').waitFor();
    const attributes = async () =>
      (await admin.get('/api/v2/organizations/e2e-org/workspaces')).json.data[0].attributes;
    // Chosen, then saved with its button (as the organization's settings above are): nothing is sent before.
    await page.getByLabel('Agent pool of e2e-ws').selectOption({ label: 'agent pool e2e-pool' });
    expect((await attributes())['setting-overwrites']).toEqual({ 'execution-mode': false, 'agent-pool': false });
    await row.getByRole('button', { name: 'Save' }).click();
    await expect.poll(attributes).toMatchObject({
      name: 'e2e-ws',
      'execution-mode': 'agent',
      'agent-pool-id': poolId,
      'setting-overwrites': { 'execution-mode': true, 'agent-pool': true },
    });
    await row.getByText('its own').waitFor();
    await page.getByLabel('Agent pool of e2e-ws').selectOption('default');
    await row.getByRole('button', { name: 'Save' }).click();
    await expect.poll(attributes).toMatchObject({
      'execution-mode': 'remote',
      'agent-pool-id': null,
      'setting-overwrites': { 'execution-mode': false, 'agent-pool': false },
    });
    await row.getByText('inherited from the organization').waitFor();
    await page.getByLabel('Agent pool of e2e-ws').selectOption({ label: 'agent pool e2e-pool' });
    await row.getByRole('button', { name: 'Save' }).click();
    await expect.poll(attributes).toMatchObject({ 'execution-mode': 'agent', 'agent-pool-id': poolId });

    await page.goto(`${daemon.url}/ui/agent-pools/e2e-org/${poolId}`);
    await page.getByLabel('Every workspace of e2e-org').uncheck();
    await page.getByRole('list', { name: 'Allowed workspaces' }).getByText('runs here').waitFor();
    await page.getByRole('checkbox', { name: 'e2e-ws' }).check();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect
      .poll(async () => (await admin.get(`/api/v2/agent-pools/${poolId}`)).json.data)
      .toMatchObject({
        attributes: { 'organization-scoped': false },
        relationships: { 'allowed-workspaces': { data: [{ type: 'workspaces' }] } },
      });
    await page.screenshot({ path: join(shots, 'pool-scope.png'), fullPage: true });
  });

  it('lists the user’s own and organizations’ boxes under Mine, one request per page', async () => {
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

  it('settings: an API token shown once, authenticator and SMS setup, a new user, maintenance on and off', async () => {
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByPlaceholder('What is it for?').fill('ci scripts');
    await page.getByRole('button', { name: 'Create token' }).click();
    const token = (await page.getByLabel('API token', { exact: true }).textContent()) ?? '';
    expect((await daemon.http.withToken(token).get('/api/v1/authenticate')).json).toEqual({
      user: { username: ADMIN.username },
    });
    await page.getByRole('cell', { name: 'ci scripts' }).waitFor();

    await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
    await page.getByRole('img', { name: 'QR code for your authenticator app' }).waitFor();
    const secret = (await page.getByLabel('TOTP secret', { exact: true }).textContent()) ?? '';
    expect(await page.getByLabel('otpauth URL', { exact: true }).textContent()).toMatch(/^otpauth:\/\/totp\//);
    await page.screenshot({ path: join(shots, 'settings.png'), fullPage: true });
    await page
      .getByPlaceholder('123456')
      .fill(new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) }).generate());
    // Switching two-factor on or off needs the current password; the field serves SMS below too.
    const password = page.getByLabel('Current password (needed to switch a method on or off)');
    await password.fill(ADMIN.password);
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('button', { name: 'Switch off authenticator' }).waitFor();
    // It says it worked, shows the recovery codes this once, and the password leaves its field.
    const done = page.getByRole('status', { name: 'Two-factor changed' });
    await done.getByText('The authenticator app is on: signing in now asks for its code.').waitFor();
    const codes = await done.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem').allTextContents();
    expect(codes).toHaveLength(10);
    expect(await password.inputValue()).toBe('');
    const withCode = await daemon.http.post('/api/v1/authenticate', {
      user: { login: ADMIN.username, password: ADMIN.password },
      two_factor: { code: codes[3] },
    });
    expect(withCode.status).toBe(200);
    await page.getByText('Recovery codes left: 10.').waitFor();

    await password.fill(ADMIN.password);
    await page.getByPlaceholder('+41 79 123 45 67').fill('+41 79 555 01 02');
    await page.getByRole('button', { name: 'Send codes by SMS' }).click();
    await done.getByText('SMS codes are on').waitFor();
    await password.fill(ADMIN.password);
    await page.getByRole('button', { name: 'Switch off SMS' }).click();
    await page.getByRole('button', { name: 'Send codes by SMS' }).waitFor();
    expect(
      (await daemon.http.withToken(token).get('/api/boxyard/two-factor')).json.two_factor.delivery_methods,
    ).toEqual(['app']);

    // The server's side of Settings, apart from one's own account.
    await page.getByRole('link', { name: 'Administration', exact: true }).click();
    await page.getByRole('heading', { name: 'Administration', level: 1 }).waitFor();
    const status = page.getByRole('definition').filter({ hasText: 'plain HTTP' });
    await status.waitFor();
    const newUser = page.getByRole('form', { name: 'New user' });
    // The rules are under the fields before anything is typed, and a refusal sits beside its field.
    await newUser.getByText('At least 12 characters').waitFor();
    await newUser.getByLabel('Username').fill('carol');
    await newUser.getByLabel('Password').fill('short');
    await newUser.getByRole('button', { name: 'Create user' }).click();
    await newUser.getByRole('alert').filter({ hasText: /12/ }).waitFor();
    expect(
      (await daemon.http.withToken(token).get('/api/boxyard/users')).json.users.map(
        (x: { username: string }) => x.username,
      ),
    ).not.toContain('carol');
    await newUser.getByLabel('Password').fill('carol-password');
    await newUser.getByRole('button', { name: 'Create user' }).click();
    await page.getByRole('cell', { name: 'carol' }).waitFor();
    expect(
      (await daemon.http.post('/api/v1/authenticate', { user: { login: 'carol', password: 'carol-password' } })).status,
    ).toBe(200);
    // A forgotten password set for her, and administrator rights given and taken back.
    const carol = page.getByRole('row', { name: /carol/ });
    await carol.getByRole('button', { name: 'Reset password' }).click();
    const reset = page.getByRole('form', { name: 'New password for carol' });
    await reset.getByLabel('New password (12+ characters)').fill('carol-new-password');
    await reset.getByRole('button', { name: 'Set password' }).click();
    await page.getByText('carol has a new password; their tokens and sessions have ended.').waitFor();
    const signIn = (password: string) =>
      daemon.http.post('/api/v1/authenticate', { user: { login: 'carol', password } });
    expect((await signIn('carol-password')).status).toBe(401);
    expect((await signIn('carol-new-password')).status).toBe(200);
    await carol.getByRole('button', { name: 'Make administrator' }).click();
    await carol.getByRole('cell', { name: 'administrator', exact: true }).waitFor();
    const users = await daemon.http.withToken(token).get('/api/boxyard/users');
    expect(users.json.users.find((u: { username: string }) => u.username === 'carol').admin).toBe(true);
    await carol.getByRole('button', { name: 'Make a plain user' }).click();
    await carol.getByRole('cell', { name: 'user', exact: true }).waitFor();

    await page.getByRole('button', { name: 'Switch maintenance on' }).click();
    await page.getByRole('button', { name: 'Switch maintenance off' }).waitFor();
    expect((await daemon.http.get('/api/v1/search')).status).toBe(503);
    await page.getByRole('button', { name: 'Switch maintenance off' }).click();
    await page.getByRole('button', { name: 'Switch maintenance on' }).waitFor();
    expect((await daemon.http.get('/api/v1/search')).status).toBe(200);
    await page.screenshot({ path: join(shots, 'settings-after.png'), fullPage: true });
  });

  it('asks for the two-factor code when the account has an authenticator', async () => {
    const alice = await daemon.user('alice');
    const begin = await alice.http.post('/api/boxyard/two-factor/totp');
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(begin.json.two_factor.secret) });
    // Confirmed with this step's code, signed in with the next one (a code counts once): both stay
    // within the daemon's one step either way if a 30 s step ends in between.
    const at = Date.now();
    expect(
      (
        await alice.http.post('/api/boxyard/two-factor/totp/confirm', {
          two_factor: { code: totp.generate({ timestamp: at }) },
          current_password: 'alice-password',
        })
      ).status,
    ).toBe(200);

    // The top bar's (Settings also offers "Sign out this browser" on this session's row).
    await page.locator('.topbar').getByRole('button', { name: 'Sign out' }).click();
    await signIn(page, daemon.url, 'alice', 'alice-password');
    await page.getByLabel('Two-factor code').fill('000000');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    await page.getByLabel('Two-factor code').fill(totp.generate({ timestamp: at + 30_000 }));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('.topbar .who', { hasText: 'alice' }).waitFor();
    await page.screenshot({ path: join(shots, 'after-2fa.png'), fullPage: true });
    process.stdout.write(`UI screenshots: ${shots}\n`);
  });
});
