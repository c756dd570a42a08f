import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import * as OTPAuth from 'otpauth';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startTestDaemon, type TestDaemon } from '../helpers/daemon';
import { chromiumAvailable, ensureUiBuilt, launchChromium, signIn } from '../helpers/ui-browser';

// Settings in the web UI: an API token, two-factor by authenticator and SMS with recovery codes, a new user, a reset
// password and administrator rights, maintenance; then a sign-in that asks for the two-factor code. What the UI did is
// checked against the API.

const haveChromium = chromiumAvailable('The settings UI test');

// Skipped only off CI without Chromium; under CI=true chromiumAvailable() throws instead.
describe.skipIf(!haveChromium)('settings and two-factor in the web UI, in headless Chromium', () => {
  let daemon: TestDaemon;
  let browser: Browser;
  let page: Page;
  let cspViolations: string[] = [];
  const shots = mkdtempSync(join(tmpdir(), 'boxyard-ui-settings-'));

  beforeAll(async () => {
    ensureUiBuilt();
    daemon = await startTestDaemon();
    ({ browser, page, cspViolations } = await launchChromium());
    await signIn(page, daemon.url, ADMIN.username, ADMIN.password);
    await page.locator('.topbar .who', { hasText: ADMIN.username }).waitFor();
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

  it('settings: an API token shown once, authenticator and SMS setup, a new user, maintenance on and off', async () => {
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('form', { name: 'New API token' }).getByLabel('Description').fill('ci scripts');
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
  });
});
