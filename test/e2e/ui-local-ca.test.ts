import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, localCaOf, startTestDaemon, type TestDaemon } from '../helpers/daemon';
import { chromiumAvailable, ensureUiBuilt, launchChromium, signIn } from '../helpers/ui-browser';
import { LocalCa } from '../../daemon/src/tls/local-ca';
import { permittedFor } from '../../daemon/src/tls/name-constraints';

// The local CA in the browser: the overview page of a daemon on a CA made before name constraints
// advises replacing it, with the steps to copy; once replaced, it says so and advises nothing.

const haveChromium = chromiumAvailable('The local CA overview browser test');

describe.skipIf(!haveChromium)("the overview page and the local CA's name constraints", () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'boxyard-ui-ca-'));
  let browser: Browser;
  let open: Page | undefined;
  let daemon: TestDaemon | undefined;

  beforeAll(async () => {
    ensureUiBuilt();
    // A CA without constraints, as --tls auto made them before.
    await LocalCa.open(join(dataDir, 'tls'), 'Boxyard', null);
    ({ browser } = await launchChromium());
  });
  afterAll(async () => {
    await browser?.close();
    await daemon?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const overview = async (d: TestDaemon): Promise<Page> => {
    // A browser profile of its own for each daemon: the session cookie of 127.0.0.1 is sent to any
    // port. It does not trust the daemon's CA: what the page shows is under test, not the handshake.
    await open?.context().close();
    const page = await (
      await browser.newContext({ viewport: { width: 1280, height: 900 }, ignoreHTTPSErrors: true })
    ).newPage();
    open = page;
    page.context().setDefaultTimeout(15_000);
    await signIn(page, d.url, ADMIN.username, ADMIN.password, '/overview');
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.getByLabel('CA fingerprint (SHA-256)').waitFor();
    return page;
  };

  it('a CA without name constraints: the page says why to replace it and shows the steps', async () => {
    daemon = await startTestDaemon({ dataDir, config: { tls: 'auto' } });
    const page = await overview(daemon);
    const note = page.getByRole('status', { name: 'Replace the local CA' });
    await expect(note.textContent()).resolves.toMatch(/This CA has no name constraints.*any site/);
    const steps = await note.getByLabel('Replace the CA').textContent();
    expect(steps).toMatch(
      /^npx boxyard tls new-ca --data DATA .*\n# restart the daemon.*\nnpx boxyard trust https:\/\/127\.0\.0\.1:\d+ --fingerprint NEW /,
    );
    await daemon.stop();
    daemon = undefined;
  });

  it('after boxyard tls new-ca and a restart: the page says which CA it replaced, and advises nothing', async () => {
    const before = (await LocalCa.open(join(dataDir, 'tls'), 'Boxyard', null)).fingerprint;
    await LocalCa.replace(
      join(dataDir, 'tls'),
      'Boxyard',
      permittedFor({ host: '127.0.0.1', publicUrl: undefined, allowedHosts: [] }),
    );
    daemon = await startTestDaemon({ dataDir, config: { tls: 'auto' } });
    const page = await overview(daemon);
    await page.getByText(`in place of the CA ${before}`).waitFor();
    expect(await page.getByLabel('CA fingerprint (SHA-256)').textContent()).toBe(localCaOf(daemon).fingerprint);
    await page.getByText('The CA is name-constrained').waitFor();
    expect(await page.getByRole('status', { name: 'Replace the local CA' }).count()).toBe(0);
  });
});
