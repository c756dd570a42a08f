import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import { chromiumAvailable, ensureUiBuilt, launchChromium, signIn } from '../helpers/ui-browser';

const haveChromium = chromiumAvailable('The UI roles test');

/**
 * The UI offers only what the caller may do: an organization's members see its members but not the controls that
 * change them (which the API would refuse with 403), with the reason; its owner sees them.
 */
describe.skipIf(!haveChromium)('roles in the web UI', () => {
  let daemon: TestDaemon;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    ensureUiBuilt();
    daemon = await startTestDaemon();
    const owner = await daemon.user('olga', { orgs: ['team'] });
    await daemon.user('mia', { password: 'mia-long-password-1' });
    const put = await owner.http.put('/api/boxyard/organizations/team/members/mia', { member: { role: 'member' } });
    expect(put.status).toBe(200);
    ({ browser, page } = await launchChromium());
  });
  afterAll(async () => {
    await browser?.close();
    await daemon?.stop();
  });

  const members = () => page.getByRole('region', { name: 'Members' });

  it("a member sees the organization's members without the controls only owners may use", async () => {
    await signIn(page, daemon.url, 'mia', 'mia-long-password-1', '/organizations/team');
    await page.getByRole('heading', { name: 'team' }).waitFor();
    await members().getByRole('cell', { name: 'olga' }).waitFor();
    await members().getByText('Only owners of team add, promote or remove members.').waitFor();
    expect(await members().getByRole('button').count()).toBe(0);
    expect(await page.getByRole('form', { name: 'Add member' }).count()).toBe(0);
    expect(await page.getByRole('region', { name: 'Service principals' }).count()).toBe(0);
  });

  it('the owner sees them', async () => {
    await page.context().clearCookies();
    await signIn(page, daemon.url, 'olga', 'olga-password', '/organizations/team');
    await page.getByRole('heading', { name: 'team' }).waitFor();
    await members().getByRole('button', { name: 'Make owner' }).waitFor();
    expect(await members().getByRole('button', { name: 'Remove' }).count()).toBe(2);
    const add = page.getByRole('form', { name: 'Add member' });
    await add.waitFor();
    expect(await members().getByText('Only owners of').count()).toBe(0);
    // Users are found as the name is typed; members already in are not offered.
    await daemon.user('milan');
    await add.getByLabel('Username').fill('mi');
    const offered = () =>
      page.locator('#member-candidates option').evaluateAll((os) => os.map((o) => o.getAttribute('value')));
    await expect.poll(offered).toEqual(['milan']);
    await add.getByText('gets one from an administrator, in Settings → Administration').waitFor();
  });

  it('the owner makes a service principal, sees its secret once with its client id, and revokes it', async () => {
    const section = page.getByRole('region', { name: 'Service principals' });
    await section.getByRole('form', { name: 'New service principal' }).getByLabel('Name').fill('packer on ci');
    await section.getByRole('button', { name: 'Create service principal' }).click();
    const secret = (await page.getByRole('status', { name: 'Client secret' }).textContent()) ?? '';
    const clientId = (await page.getByRole('status', { name: 'Client id' }).textContent()) ?? '';
    const exchange = () =>
      daemon.http.post(
        '/oauth2/token',
        new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: clientId,
          client_secret: secret,
        }).toString(),
        { raw: true, headers: { 'content-type': 'application/x-www-form-urlencoded' } },
      );
    expect((await exchange()).status).toBe(200);
    await section.getByRole('cell', { name: 'packer on ci' }).waitFor();
    page.once('dialog', (d) => void d.accept());
    await section.getByRole('button', { name: 'Revoke' }).click();
    await section.getByText('No tokens yet.').waitFor();
    expect((await exchange()).status).toBe(401);
  });
});
