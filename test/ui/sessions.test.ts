import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../daemon/src/lib/clock';
import { ApiTokensAnswer } from '../../daemon/src/contract/wire/accounts';
import { ADMIN, startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpResponse } from '../helpers/http';

// The web UI's sessions (named after the browser, marked in the token list, ended with
// their cookie and then deleted), changing one's password, and what maintenance mode lets through.

const CSRF = { 'x-boxyard-csrf': '1' };
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
const DAY_MS = 24 * 3600 * 1000;
const cookieOf = (r: HttpResponse): string => (r.headers.get('set-cookie') ?? '').split(';')[0];

async function signIn(
  d: TestDaemon,
  login: string,
  password: string,
  headers: Record<string, string> = {},
): Promise<string> {
  const r = await d.http.post(
    '/api/boxyard/session',
    { user: { login, password } },
    { headers: { ...CSRF, 'user-agent': FIREFOX, ...headers } },
  );
  expect(r.status, r.text).toBe(200);
  return cookieOf(r);
}

/** The token list as the caller sees it, checked against the wire contract. */
async function tokens(d: TestDaemon, headers: Record<string, string>) {
  const r = await d.http.get('/api/boxyard/tokens', { headers });
  expect(r.status, r.text).toBe(200);
  return ApiTokensAnswer.parse(r.json).tokens;
}

describe('web UI sessions', () => {
  const clock = new ManualClock(new Date());
  let d: TestDaemon;
  beforeAll(async () => {
    d = await startTestDaemon({ clock });
  });
  afterAll(async () => {
    await d?.stop();
  });

  it('a sign-in makes a session token named after the browser, ending with its cookie, marked current for its own requests', async () => {
    const cookie = await signIn(d, ADMIN.username, ADMIN.password);
    const seen = await tokens(d, { cookie });
    const session = seen.find((t) => t.current);
    expect(session).toMatchObject({ description: 'Boxyard web UI — Firefox on Linux', session: true, current: true });
    assert(session?.expires_at, 'the session token has no end');
    expect(Date.parse(session.expires_at) - Date.parse(session.created_at)).toBe(30 * DAY_MS);
    expect(seen.filter((t) => t.current)).toHaveLength(1);
    // The same list through the API token: that token is the current one, the session is not.
    const viaToken = await tokens(d, { authorization: `Bearer ${d.adminToken}` });
    expect(viaToken.find((t) => t.id === session.id)).toMatchObject({ current: false, session: true });
    expect(viaToken.find((t) => t.current)).toMatchObject({ session: false, expires_at: null });
  });

  it('signing in again from a browser that holds a session replaces it', async () => {
    const first = await signIn(d, ADMIN.username, ADMIN.password);
    const before = (await tokens(d, { authorization: `Bearer ${d.adminToken}` })).length;
    const second = await signIn(d, ADMIN.username, ADMIN.password, { cookie: first });
    expect((await tokens(d, { authorization: `Bearer ${d.adminToken}` })).length).toBe(before);
    expect((await d.http.get('/api/boxyard/session', { headers: { cookie: first } })).status).toBe(401);
    expect((await d.http.get('/api/boxyard/session', { headers: { cookie: second } })).status).toBe(200);
  });

  it('an ended session is refused, and the next sign-in deletes it; API tokens do not end', async () => {
    const { token } = await d.user('sleeper');
    const cookie = await signIn(d, 'sleeper', 'sleeper-password');
    const sessionRows = () => d.deps.db.selectFrom('api_tokens').select('id').where('session', '=', 1).execute();
    const before = (await sessionRows()).length;
    clock.advance(30 * DAY_MS - 1000);
    expect((await d.http.get('/api/boxyard/session', { headers: { cookie } })).status).toBe(200);
    clock.advance(1000);
    const ended = await d.http.get('/api/boxyard/session', { headers: { cookie } });
    expect(ended.status).toBe(401);
    expect(ended.json).toMatchObject({ code: 'unauthorized' });
    expect(ended.json.errors[0]).toMatch(/session has ended/);
    expect((await d.http.withToken(token).get('/api/boxyard/user')).status).toBe(200);
    // Every session made before is past its end now: the next sign-in (anyone's) leaves only its own.
    expect((await sessionRows()).length).toBe(before);
    await signIn(d, ADMIN.username, ADMIN.password);
    expect(await sessionRows()).toHaveLength(1);
  });
});

describe("changing one's password", () => {
  let d: TestDaemon;
  beforeAll(async () => {
    d = await startTestDaemon();
  });
  afterAll(async () => {
    await d?.stop();
  });

  const change = (cookie: string, current: string, password: string) =>
    d.http.patch(
      '/api/boxyard/users/carol',
      { user: { password }, current_password: current },
      { headers: { ...CSRF, cookie } },
    );
  const login = (password: string) => d.http.post('/api/v1/authenticate', { user: { login: 'carol', password } });

  it('a wrong current password is refused with its code and changes nothing', async () => {
    await d.user('carol');
    const cookie = await signIn(d, 'carol', 'carol-password');
    const r = await change(cookie, 'not-my-password', 'a-brand-new-password');
    expect(r.status).toBe(403);
    expect(r.json).toMatchObject({ code: 'reauthentication_required' });
    expect(r.json.errors[0]).toMatch(/current password is wrong/);
    expect((await login('carol-password')).status).toBe(200);
  });

  it('the right one changes it: the old password stops working, this session stays, the other tokens go', async () => {
    const other = (await login('carol-password')).json.token as string;
    const cookie = await signIn(d, 'carol', 'carol-password');
    const r = await change(cookie, 'carol-password', 'a-brand-new-password');
    expect(r.status, r.text).toBe(200);
    expect((await login('carol-password')).status).toBe(401);
    expect((await login('a-brand-new-password')).status).toBe(200);
    expect((await d.http.get('/api/boxyard/session', { headers: { cookie } })).status).toBe(200);
    expect((await d.http.withToken(other).get('/api/boxyard/user')).status).toBe(401);
  });

  it('a new password shorter than the policy is refused with its code', async () => {
    const cookie = await signIn(d, 'carol', 'a-brand-new-password');
    const r = await change(cookie, 'a-brand-new-password', 'short');
    expect(r.json).toMatchObject({ code: 'validation' });
  });
});

describe('maintenance mode', () => {
  let d: TestDaemon;
  beforeAll(async () => {
    d = await startTestDaemon();
  });
  afterAll(async () => {
    await d?.stop();
  });

  it("answers who is signed in and the settings to everyone; administrators keep the UI's API, clients are kept out", async () => {
    const admin = d.http.withToken(d.adminToken);
    const { http: dave } = await d.user('dave');
    expect((await admin.put('/api/boxyard/settings', { settings: { maintenance: true } })).status).toBe(200);
    try {
      const cookie = await signIn(d, ADMIN.username, ADMIN.password);
      expect((await d.http.get('/api/boxyard/session', { headers: { cookie } })).json.user).toMatchObject({
        admin: true,
      });
      expect((await admin.get('/api/boxyard/user')).json.user).toMatchObject({ admin: true });
      expect((await dave.get('/api/boxyard/user')).json.user).toMatchObject({ username: 'dave', admin: false });
      expect((await dave.get('/api/boxyard/settings')).json.settings).toMatchObject({ maintenance: true });
      for (const path of ['/api/boxyard/tokens', '/api/boxyard/overview', '/api/boxyard/users']) {
        expect((await admin.get(path)).status, path).toBe(200);
        const refused = await dave.get(path);
        expect(refused.status, path).toBe(503);
        expect(refused.json).toMatchObject({ code: 'maintenance' });
      }
      // Clients' APIs are closed to administrators too: that is what maintenance is for.
      expect((await admin.get('/api/v1/search')).status).toBe(503);
      expect((await dave.put('/api/boxyard/settings', { settings: { maintenance: false } })).status).toBe(403);
      // The administrator's session switches it off from the web UI.
      const off = await d.http.put(
        '/api/boxyard/settings',
        { settings: { maintenance: false } },
        { headers: { ...CSRF, cookie } },
      );
      expect(off.json.settings).toMatchObject({ maintenance: false });
      expect((await dave.get('/api/boxyard/tokens')).status).toBe(200);
    } finally {
      await admin.put('/api/boxyard/settings', { settings: { maintenance: false } });
    }
  });
});
