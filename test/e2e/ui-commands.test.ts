import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, localCaOf, startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient } from '../helpers/http';
import { JSONAPI, createOrg, createPool, createWorkspace, eventually } from '../helpers/agents';
import { chromiumAvailable, ensureUiBuilt, launchChromium, signIn } from '../helpers/ui-browser';
import { makeBoxFile, vagrantInstalled } from '../helpers/vagrant';
import { freshHome, paste } from '../helpers/pasted';

// Every command the web UI hands out, pasted on "another machine": read from its copy field as shown, run by
// `bash -c` in a fresh, empty HOME with a clean environment, against a daemon on `--tls auto` whose CA that
// machine does not trust. The trust step each page shows first fetches the CA and checks its fingerprint; then
// curl reads the catalog, vagrant adds the box (Debian's vagrant, as test/e2e/vagrant-https.test.ts runs it), the
// agent registers and reports. A token the command needs is taken from the page that makes it.

const haveChromium = chromiumAvailable('The pasted-commands browser test');
const haveVagrant = vagrantInstalled();
const haveTerraform =
  spawnSync('terraform', ['version'], { env: { PATH: process.env.PATH, CHECKPOINT_DISABLE: '1' } }).status === 0;
const TOKEN = '<your Boxyard token>';

/** A released version 1.0.0 of ORG/BOX with a hosted virtualbox file, through the API. */
async function hostedBox(http: HttpClient, tag: string, isPrivate: boolean): Promise<void> {
  const [username, name] = tag.split('/');
  expect((await http.post('/api/v1/boxes', { box: { username, name, is_private: isPrivate } })).status).toBe(200);
  const box = `/api/v1/box/${tag}`;
  expect((await http.post(`${box}/versions`, { version: { version: '1.0.0' } })).status).toBe(200);
  expect((await http.post(`${box}/version/1.0.0/providers`, { provider: { name: 'virtualbox' } })).status).toBe(200);
  const target = (await http.get(`${box}/version/1.0.0/provider/virtualbox/upload`)).json.upload_path as string;
  const file = await makeBoxFile(join(tmpdir(), `boxyard-commands-${name}.box`));
  const put = await http.put(new URL(target).pathname, file, { raw: true });
  expect(put.status, put.text).toBe(200);
  expect((await http.put(`${box}/version/1.0.0/release`)).status).toBe(200);
}

describe.skipIf(!haveChromium)('the commands the web UI hands out, pasted on another machine (--tls auto)', () => {
  let daemon: TestDaemon;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const homes: string[] = [];
  let signedIn: Page;

  beforeAll(async () => {
    ensureUiBuilt();
    daemon = await startTestDaemon({ config: { tls: 'auto' } });
    const api = daemon.http.withToken(daemon.adminToken);
    await createOrg(api.withContentType(JSONAPI), 'acme');
    await hostedBox(api, 'acme/web', false);
    await hostedBox(api, 'acme/secret', true);
    ({ browser } = await launchChromium());
    signedIn = await newPage();
    await signIn(signedIn, daemon.url, ADMIN.username, ADMIN.password, '/overview');
    await signedIn.getByRole('heading', { name: 'Overview' }).waitFor();
  });
  afterAll(async () => {
    await browser?.close();
    await daemon?.stop();
    for (const h of homes) rmSync(h, { recursive: true, force: true });
  });

  /** A browser profile of its own; the browser does not trust the CA: what the pages show is under test. */
  async function newPage(): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ignoreHTTPSErrors: true });
    context.setDefaultTimeout(15_000);
    contexts.push(context);
    return context.newPage();
  }
  /** The page at 1280 and 390 px, for a reviewer to look at (the folder is printed). */
  const shots = mkdtempSync(join(tmpdir(), 'boxyard-ui-commands-'));
  async function screenshots(page: Page, name: string): Promise<void> {
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.screenshot({ path: join(shots, `${name}-${width}.png`), fullPage: true });
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  }
  afterAll(() => console.log(`screenshots of the pasted commands' pages: ${shots}`));
  const home = () => {
    const h = freshHome();
    homes.push(h);
    return h;
  };
  const shown = async (page: Page, label: string) =>
    (await page.getByLabel(label, { exact: true }).textContent()) ?? '';

  /** The page's trust step, pasted: the CA is fetched into the new HOME and checked. */
  async function trusted(page: Page, into: string): Promise<void> {
    expect(await shown(page, 'CA fingerprint (SHA-256)')).toBe(localCaOf(daemon).fingerprint);
    expect(await page.getByRole('link', { name: 'the CA (/ca.pem)' }).getAttribute('href')).toBe('/ca.pem');
    const fetched = await paste(await shown(page, 'Fetch and check the CA'), into);
    expect(fetched.code, fetched.stderr).toBe(0);
    expect(fetched.stdout).toContain('CA checked');
  }

  it('a public box, anonymously: the trust step, then curl reads the catalog and vagrant adds the box', async () => {
    const page = await newPage();
    await page.goto(`${daemon.url}/ui/boxes/acme/web`);
    await page.getByRole('heading', { name: 'Trust this server' }).waitFor();
    const curl = await shown(page, 'Catalog (curl)');

    // Without the trust step the machine has no CA file: curl fails rather than trusting anything.
    const untrusted = await paste(curl, home());
    expect(untrusted.code).not.toBe(0);

    const h = home();
    await trusted(page, h);
    const catalog = await paste(curl, h);
    expect(catalog.code, catalog.stderr).toBe(0);
    expect(JSON.parse(catalog.stdout).name).toBe('acme/web');

    // The Vagrantfile names the catalog and the CA file: curl reads that catalog with that CA.
    const vagrantfile = await shown(page, 'Vagrantfile');
    const url = /config\.vm\.box_url = "([^"]+)"/.exec(vagrantfile)?.[1];
    const ca = /config\.vm\.box_download_ca_cert = File\.expand_path\("~\/([^"]+)"\)/.exec(vagrantfile)?.[1];
    expect(url).toBe(`${daemon.url}/acme/web`);
    expect(ca && existsSync(join(h, ca))).toBe(true);
    const byFile = await paste(`curl -fsS --cacert ~/${ca} ${url}`, h);
    expect(JSON.parse(byFile.stdout).name).toBe('acme/web');

    const add = await shown(page, 'vagrant box add');
    expect(add).toContain('--cacert ~/.config/boxyard/ca.pem');
    await screenshots(page, 'box-page-anonymous');
    if (haveVagrant) {
      const added = await paste(add, h);
      expect(added.code, added.stdout + added.stderr).toBe(0);
      expect(added.stdout).toContain("Successfully added box 'acme/web' (v1.0.0)");
    }
  });

  it('the trust step keeps no CA whose fingerprint is not the one shown', async () => {
    const page = await newPage();
    await page.goto(`${daemon.url}/ui/boxes/acme/web`);
    const lines = await shown(page, 'Fetch and check the CA');
    const h = home();
    const other = localCaOf(daemon).fingerprint.replace(/^../, (b) => (b === '00' ? '01' : '00'));
    const refused = await paste(lines.replace(localCaOf(daemon).fingerprint, other), h);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('not trusted');
    expect(existsSync(join(h, '.config/boxyard/ca.pem'))).toBe(false);
  });

  it('a private box: the page links to where tokens are made; with one from there, curl and vagrant read it', async () => {
    const page = signedIn;
    await page.goto(`${daemon.url}/ui/boxes/acme/secret`);
    await page.getByRole('heading', { name: 'Trust this server' }).waitFor();
    const curl = await shown(page, 'Catalog (curl)');
    const add = await shown(page, 'vagrant box add');
    expect(curl).toContain(TOKEN);
    expect(add).toContain(`VAGRANT_CLOUD_TOKEN=${TOKEN}`);
    const h = home();
    await trusted(page, h);

    await page.getByRole('link', { name: 'Settings → API tokens' }).click();
    const tokens = page.locator('#tokens');
    await tokens.getByRole('heading', { name: 'API tokens and sessions' }).waitFor();
    await tokens.getByLabel('Description').fill('laptop');
    await tokens.getByRole('button', { name: 'Create token' }).click();
    const secret = await shown(page, 'API token');
    expect(secret.length).toBeGreaterThan(20);

    const catalog = await paste(curl.replace(TOKEN, secret), h);
    expect(catalog.code, catalog.stderr).toBe(0);
    expect(JSON.parse(catalog.stdout).name).toBe('acme/secret');
    if (haveVagrant) {
      const added = await paste(add.replace(TOKEN, secret), h);
      expect(added.code, added.stdout + added.stderr).toBe(0);
      expect(added.stdout).toContain("Successfully added box 'acme/secret' (v1.0.0)");
    }
  });

  it("an agent token's command fetches the agent from the daemon and runs it: it registers and reports idle", async () => {
    const api = daemon.http.withToken(daemon.adminToken).withContentType(JSONAPI);
    const poolId = (await createPool(api, 'acme', 'runners')).id as string;
    const page = signedIn;
    await page.goto(`${daemon.url}/ui/agent-pools/acme/${poolId}`);
    await page.getByText('An agent pool is a group of machines').waitFor();
    const generic = await shown(page, 'Get and start an agent');
    expect(generic).toContain('--token <agent token>');
    await page.getByRole('form', { name: 'New agent token' }).getByLabel('Description').fill('rack');
    await page.getByRole('button', { name: 'Create token' }).click();
    const secret = await shown(page, 'agent token');
    const command = await shown(page, 'boxyard agent command');
    expect(command).toContain(`--token ${secret}`);
    expect(command).toContain('--ca-file ~/.config/boxyard/ca.pem');

    await screenshots(page, 'agent-pool');
    const h = home();
    await trusted(page, h);
    const idle = eventually(async () => {
      const agents = (await api.get(`/api/v2/agent-pools/${poolId}/agents`)).json.data as Array<{
        attributes: { status: string };
      }>;
      return agents.some((a) => a.attributes.status === 'idle');
    }, 30_000);
    // Ten seconds of the agent at least, and until the daemon lists it idle.
    const ran = await paste(command, h, Promise.all([idle, new Promise((r) => setTimeout(r, 10_000))]));
    await idle;
    expect(ran.stdout).not.toContain('unreachable');
    expect(ran.stdout).toContain('registered');
  });

  it("a workspace shows its cloud block; the overview's trust step works as the others", async () => {
    const api = daemon.http.withToken(daemon.adminToken).withContentType(JSONAPI);
    await createWorkspace(api, 'acme', 'site');
    const page = signedIn;
    await page.goto(`${daemon.url}/ui/organizations/acme`);
    await page.getByText('A workspace is one Terraform configuration').waitFor();
    await page.getByText('Terraform block').click();
    const block = await shown(page, 'Terraform cloud block of site');
    expect(block).toContain(`hostname     = "${new URL(daemon.url).host}"`);
    expect(block).toContain('organization = "acme"');
    expect(block).toMatch(/workspaces \{\n\s+name = "site"/);

    // Terraform, where installed, reaches the daemon with the block, the token and the CA, and stops where
    // Boxyard stops: it does not serve HCP Terraform's run API (entitlements, state, runs), as the page says.
    if (haveTerraform) {
      const th = home();
      await trusted(page, th);
      const setup = await shown(page, 'Terraform setup for site');
      writeFileSync(join(th, 'main.tf'), block);
      const tf = await paste(`${setup.replace(TOKEN, daemon.adminToken)}\nterraform init -input=false -no-color`, th);
      expect(tf.stderr).not.toMatch(/x509|certificate|no such host|connection refused/i);
      expect(tf.stderr).toContain('Failed to read organization "acme"');
    }
    await page.goto(`${daemon.url}/ui/overview`);
    await page.getByRole('heading', { name: 'Trust this server' }).waitFor();
    const h = home();
    await trusted(page, h);
    const setup = await shown(page, 'Client setup');
    expect(setup).toContain(`boxyard agent --url ${daemon.url} --ca-file ~/.config/boxyard/ca.pem`);
    const curl = /# curl: (.*)$/m.exec(setup)?.[1] ?? '';
    const catalog = await paste(curl.replace('ORG/BOX', 'acme/web'), h);
    expect(JSON.parse(catalog.stdout).name).toBe('acme/web');
  });
});
