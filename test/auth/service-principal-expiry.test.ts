import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../daemon/src/lib/clock';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient } from '../helpers/http';
import { createBox, publish } from '../helpers/registry';

// A principal's token ends after its hour; an upload URL it made lives on to its own end, as a user's does, until the
// principal is revoked.
let d: TestDaemon;
let owner: HttpClient;
const clock = new ManualClock(new Date());
const HOUR = 3_600_000;
let client: { client_id: string; client_secret: string };

async function signIn() {
  const r = await d.http.post(
    '/oauth2/token',
    new URLSearchParams({ grant_type: 'client_credentials', ...client }).toString(),
    { raw: true, headers: { 'content-type': 'application/x-www-form-urlencoded' } },
  );
  expect(r.status, r.text).toBe(200);
  return d.http.withToken(r.json.access_token);
}
const tokenRows = async () => (await d.deps.db.selectFrom('service_principal_tokens').select('id').execute()).length;

beforeAll(async () => {
  d = await startTestDaemon({ clock });
  owner = (await d.user('ursula', { orgs: ['uploads'] })).http;
  const made = await owner.post('/api/boxyard/organizations/uploads/service-principals', {
    service_principal: { name: 'slow uploader' },
  });
  const { client_id, client_secret } = made.json.service_principal;
  client = { client_id, client_secret };
});
afterAll(() => d.stop());

describe("a principal's token after its hour", () => {
  it('stops working, while the upload URL it made still takes the file', async () => {
    const sp = await signIn();
    await createBox(sp, 'uploads', 'slow');
    await publish(sp, 'uploads', 'slow', '1.0.0', { release: false });
    const upload = await sp.get('/api/v2/box/uploads/slow/version/1.0.0/provider/virtualbox/upload');
    expect(upload.status, upload.text).toBe(200);
    clock.advance(HOUR + 1000);
    expect((await sp.get('/api/v2/authenticate')).status).toBe(401);
    // Another sign-in clears ended tokens, but not one an upload URL may still need.
    await signIn();
    const put = await d.http.put(upload.json.upload_path, 'box bytes', { raw: true, headers: {} });
    expect(put.status, put.text).toBe(200);
  });

  it('is forgotten a month after it ended', async () => {
    const before = await tokenRows();
    expect(before).toBeGreaterThanOrEqual(2);
    clock.advance(32 * 24 * HOUR);
    await signIn();
    expect(await tokenRows()).toBe(1);
  });
});
