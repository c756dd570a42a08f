import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpResponse } from '../helpers/http';
import { countRows } from '../helpers/registry';
import { ensureUiBuilt } from '../helpers/ui-browser';

// Browser side: security headers on the UI and the API, and the UI's cookie session
// (httpOnly, SameSite=Strict, CSRF header) instead of a token held by the page.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CSRF = { 'x-boxyard-csrf': '1' };
const signInBody = (login: string, password: string, code?: string) => ({
  user: { login, password },
  two_factor: { code: code ?? null },
});

/** The cookie's name=value from a Set-Cookie answer, ready to send back as a Cookie header. */
const cookieOf = (r: HttpResponse): string => (r.headers.get('set-cookie') ?? '').split(';')[0];

/** The directives of a Content-Security-Policy header, by name. */
function csp(r: HttpResponse): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const part of (r.headers.get('content-security-policy') ?? '').split(';')) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (name) out[name] = values;
  }
  return out;
}

let d: TestDaemon;
beforeAll(async () => {
  ensureUiBuilt();
  d = await startTestDaemon();
});
afterAll(async () => {
  await d?.stop();
});

describe('security headers', () => {
  it('the UI: a strict CSP (no inline script, no eval), no framing, nosniff, no referrer', async () => {
    for (const path of ['/ui/', '/ui/boxes/admin/x', '/']) {
      const r = await d.http.get(path);
      expect(r.status, path).toBe(path === '/' ? 302 : 200);
      const policy = csp(r);
      expect(policy['default-src']).toEqual(["'none'"]);
      expect(policy['script-src']).toEqual(["'self'"]);
      expect(policy['style-src']).toEqual(["'self'"]);
      expect(policy['img-src']).toEqual(["'self'", 'data:']);
      expect(policy['connect-src']).toEqual(["'self'"]);
      expect(policy['frame-ancestors']).toEqual(["'none'"]);
      expect(policy['base-uri']).toEqual(["'none'"]);
      expect(r.headers.get('x-frame-options')).toBe('DENY');
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      expect(r.headers.get('referrer-policy')).toBe('no-referrer');
    }
  });

  it('the built UI needs nothing the CSP forbids: no inline script or style, no event-handler attributes', async () => {
    const html = readFileSync(join(ROOT, 'renderer/dist/index.html'), 'utf8');
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attrs, body] of scripts) {
      expect(attrs).toMatch(/\bsrc="\/ui\/assets\/[^"]+\.js"/);
      expect(body.trim()).toBe('');
    }
    expect(html).not.toMatch(/<style\b|\sstyle=|\son[a-z]+=/i);
    // Every asset is served from /ui/assets/ with the same headers (a script with nosniff and its type).
    for (const file of readdirSync(join(ROOT, 'renderer/dist/assets')).filter((f) => /\.(js|css)$/.test(f))) {
      const r = await d.http.get(`/ui/assets/${file}`);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toMatch(file.endsWith('.js') ? /^text\/javascript/ : /^text\/css/);
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it('API answers, errors and /healthz: nosniff, nothing runs or frames them', async () => {
    const answers = [
      await d.http.get('/healthz'),
      await d.http.get('/api/v1/search'),
      await d.http.get('/api/v1/box/nobody/nothing'),
      await d.http.withContentType('application/vnd.api+json').get('/api/v2/organizations/nothing'),
      await d.http.post('/api/v1/boxes', { box: { username: 'admin', name: 'x' } }),
    ];
    expect(answers.map((r) => r.status)).toEqual([200, 200, 404, 401, 401]);
    for (const r of answers) {
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      expect(r.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
    }
  });

  it('grants no cross-origin access: a preflight gets no Access-Control-Allow-* headers', async () => {
    const r = await d.http.request('OPTIONS', '/api/v1/boxes', {
      headers: {
        origin: 'http://127.0.0.1:1',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'x-boxyard-csrf,content-type',
      },
    });
    expect([...r.headers.keys()].filter((k) => k.startsWith('access-control-'))).toEqual([]);
  });
});

describe('the UI session cookie', () => {
  it('signs in with a password: an httpOnly SameSite=Strict cookie, no token in the answer', async () => {
    const before = (await d.http.withToken(d.adminToken).get('/api/boxyard/tokens')).json.tokens.length;
    const r = await d.http.post('/api/boxyard/session', signInBody(ADMIN.username, ADMIN.password), { headers: CSRF });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({ user: { username: ADMIN.username, admin: true } });
    expect(Object.keys(r.json)).toEqual(['user']);
    const setCookie = r.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/^boxyard-session=[\w-]{40,}; Path=\/; Max-Age=2592000; HttpOnly; SameSite=Strict$/);
    expect(r.text).not.toContain(cookieOf(r).split('=')[1]);
    // The session is a token of the user's, listed (and revocable) like the others.
    const tokens = (await d.http.withToken(d.adminToken).get('/api/boxyard/tokens')).json.tokens;
    expect(tokens).toHaveLength(before + 1);
    expect(tokens.at(-1)).toMatchObject({ description: expect.stringMatching(/^Boxyard web UI — /), session: true });

    const cookie = { cookie: cookieOf(r) };
    expect((await d.http.get('/api/boxyard/session', { headers: cookie })).json).toMatchObject({
      user: { username: ADMIN.username },
    });
    expect((await d.http.get('/api/boxyard/user', { headers: cookie })).json.user.username).toBe(ADMIN.username);
    // A browser without a session is told nobody is signed in (200, so a visitor's console stays clean);
    // a session that no longer works is a 401.
    const nobody = await d.http.get('/api/boxyard/session');
    expect([nobody.status, nobody.json]).toEqual([200, { user: null }]);
    const ended = await d.http.get('/api/boxyard/session', {
      headers: { cookie: 'boxyard-session=no-such-session-token-aaaaaaaaaaaaaaaaaaaaaaaa' },
    });
    expect([ended.status, ended.json.code]).toEqual([401, 'unauthorized']);
  });

  it('refuses a sign-in without the CSRF header (login CSRF) and a wrong password, setting no cookie', async () => {
    const forged = await d.http.post('/api/boxyard/session', signInBody(ADMIN.username, ADMIN.password));
    expect(forged.status).toBe(403);
    expect(forged.json.errors[0]).toMatch(/x-boxyard-csrf/);
    expect(forged.headers.get('set-cookie')).toBeNull();
    const wrong = await d.http.post('/api/boxyard/session', signInBody(ADMIN.username, 'wrong-password'), {
      headers: CSRF,
    });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('set-cookie')).toBeNull();
  });

  it('a change authenticated by the cookie needs the CSRF header; token clients do not', async () => {
    const cookie = cookieOf(
      await d.http.post('/api/boxyard/session', signInBody(ADMIN.username, ADMIN.password), { headers: CSRF }),
    );
    const boxes = await countRows(d, 'boxes');
    const body = { box: { username: ADMIN.username, name: 'csrf-box', is_private: false } };
    // What a forged form or fetch from another page looks like: the cookie, a simple content type, no header.
    for (const type of ['application/json', 'text/plain', 'application/x-www-form-urlencoded']) {
      const forged = await d.http.post('/api/v1/boxes', body, { headers: { cookie, 'content-type': type } });
      expect(forged.status, type).toBe(403);
      expect(forged.json).toEqual({
        errors: [expect.stringContaining('cross-site request forgery')],
        success: false,
        code: 'forbidden',
      });
    }
    expect(
      (
        await d.http
          .withContentType('application/vnd.api+json')
          .post(
            '/api/v2/organizations',
            { data: { type: 'organizations', attributes: { name: 'forged' } } },
            { headers: { cookie } },
          )
      ).status,
    ).toBe(403);
    expect(await countRows(d, 'boxes')).toBe(boxes);

    const ok = await d.http.post('/api/v1/boxes', body, { headers: { cookie, ...CSRF } });
    expect(ok.status, ok.text).toBe(200);
    expect(await countRows(d, 'boxes')).toBe(boxes + 1);
    // Reads need no header; API clients with a token never send one (nor do they send the cookie).
    expect((await d.http.get(`/api/v1/box/${ADMIN.username}/csrf-box`, { headers: { cookie } })).status).toBe(200);
    const bearer = await d.http
      .withToken(d.adminToken)
      .post('/api/v1/boxes', { box: { username: ADMIN.username, name: 'bearer-box' } });
    expect(bearer.status).toBe(200);
    const both = await d.http
      .withToken(d.adminToken)
      .delete(`/api/v1/box/${ADMIN.username}/bearer-box`, { headers: { cookie } });
    expect(both.status).toBe(200);
  });

  it('signs out: the token behind the cookie is revoked and the cookie cleared; a forged sign-out is refused', async () => {
    const cookie = cookieOf(
      await d.http.post('/api/boxyard/session', signInBody(ADMIN.username, ADMIN.password), { headers: CSRF }),
    );
    const count = async () => (await d.http.withToken(d.adminToken).get('/api/boxyard/tokens')).json.tokens.length;
    const before = await count();
    expect((await d.http.delete('/api/boxyard/session', { headers: { cookie } })).status).toBe(403);
    expect((await d.http.get('/api/boxyard/session', { headers: { cookie } })).status).toBe(200);

    const out = await d.http.delete('/api/boxyard/session', { headers: { cookie, ...CSRF } });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toBe('boxyard-session=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict');
    expect(await count()).toBe(before - 1);
    const after = await d.http.get('/api/boxyard/session', { headers: { cookie } });
    expect(after.status).toBe(401);
    expect(after.json.errors[0]).toMatch(/session has ended/);
    // Signing out without a session just clears the cookie.
    expect((await d.http.delete('/api/boxyard/session', { headers: CSRF })).status).toBe(204);
  });

  it('signing in again in the same browser replaces the session', async () => {
    const first = cookieOf(
      await d.http.post('/api/boxyard/session', signInBody(ADMIN.username, ADMIN.password), { headers: CSRF }),
    );
    const second = await d.http.post('/api/boxyard/session', signInBody(ADMIN.username, ADMIN.password), {
      headers: { cookie: first, ...CSRF },
    });
    expect(second.status).toBe(200);
    expect((await d.http.get('/api/boxyard/session', { headers: { cookie: first } })).status).toBe(401);
    expect((await d.http.get('/api/boxyard/session', { headers: { cookie: cookieOf(second) } })).status).toBe(200);
  });

  it('asks for the two-factor code (406) before setting a cookie', async () => {
    const bob = await d.user('bob');
    const begin = await bob.http.post('/api/boxyard/two-factor/totp', { current_password: 'bob-password' });
    expect(begin.status, begin.text).toBeLessThan(300);
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(begin.json.two_factor.secret) });
    // Confirmed with this step's code, signed in with the next one (a code counts once): both stay
    // within the daemon's one step either way if a 30 s step ends in between.
    const at = Date.now();
    const confirm = await bob.http.post('/api/boxyard/two-factor/totp/confirm', {
      two_factor: { code: totp.generate({ timestamp: at }) },
      current_password: 'bob-password',
    });
    expect(confirm.status, confirm.text).toBe(200);

    const noCode = await d.http.post('/api/boxyard/session', signInBody('bob', 'bob-password'), { headers: CSRF });
    expect(noCode.status).toBe(406);
    expect(noCode.json.two_factor.delivery_methods).toEqual(['app']);
    expect(noCode.headers.get('set-cookie')).toBeNull();
    const ok = await d.http.post(
      '/api/boxyard/session',
      signInBody('bob', 'bob-password', totp.generate({ timestamp: at + 30_000 })),
      { headers: CSRF },
    );
    expect(ok.status, ok.text).toBe(200);
    expect((await d.http.get('/api/boxyard/session', { headers: { cookie: cookieOf(ok) } })).json.user.username).toBe(
      'bob',
    );
  });

  it('stays up in maintenance mode, so an administrator can sign in and switch it off', async () => {
    const admin = d.http.withToken(d.adminToken);
    expect((await admin.put('/api/boxyard/settings', { settings: { maintenance: true } })).status).toBe(200);
    try {
      const r = await d.http.post('/api/boxyard/session', signInBody(ADMIN.username, ADMIN.password), {
        headers: CSRF,
      });
      expect(r.status).toBe(200);
      expect((await d.http.get('/api/boxyard/session', { headers: { cookie: cookieOf(r) } })).status).toBe(200);
    } finally {
      expect((await admin.put('/api/boxyard/settings', { settings: { maintenance: false } })).status).toBe(200);
    }
  });
});

describe('the session cookie behind https', () => {
  let s: TestDaemon;
  beforeAll(async () => {
    s = await startTestDaemon({ config: { publicUrl: 'https://boxes.example.org' } });
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('is Secure with the __Host- prefix, and still read when a TLS proxy forwards plain HTTP', async () => {
    const r = await s.http.post('/api/boxyard/session', signInBody(ADMIN.username, ADMIN.password), { headers: CSRF });
    expect(r.status, r.text).toBe(200);
    expect(r.headers.get('set-cookie')).toMatch(
      /^__Host-boxyard-session=[\w-]{40,}; Path=\/; Max-Age=2592000; HttpOnly; SameSite=Strict; Secure$/,
    );
    const cookie = { cookie: cookieOf(r) };
    expect((await s.http.get('/api/boxyard/session', { headers: cookie })).status).toBe(200);
    // The plain name means nothing here (nobody is signed in): a cookie set over plain HTTP by someone else cannot
    // shadow it.
    expect(
      (await s.http.get('/api/boxyard/session', { headers: { cookie: cookieOf(r).replace('__Host-', '') } })).json,
    ).toEqual({ user: null });
  });
});
