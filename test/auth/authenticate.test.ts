import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as OTPAuth from 'otpauth';
import { startTestDaemon, ADMIN, type TestDaemon } from '../helpers/daemon';
import { ManualClock } from '../../daemon/src/lib/clock';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let d: TestDaemon;
const clock = new ManualClock(new Date('2026-03-01T10:00:00Z'));
const login = (user: string, password: string, extra: Record<string, unknown> = {}) =>
  d.http.post('/api/v1/authenticate', { user: { login: user, password }, token: { description: 'test' }, ...extra });

const smsLog = join(mkdtempSync(join(tmpdir(), 'boxyard-sms-')), 'sms.log');
const sentCodes = () => (existsSync(smsLog) ? readFileSync(smsLog, 'utf8').trim().split('\n') : []);

beforeAll(async () => {
  // The real command sender: the code and number arrive as environment variables.
  d = await startTestDaemon({
    clock,
    config: { smsCommand: `echo "$BOXYARD_SMS_TO $BOXYARD_SMS_CODE" >> '${smsLog}'` },
  });
});
afterAll(async () => {
  await d.stop();
});

describe('tokens', () => {
  it('creates a token by username or e-mail and shows the secret once', async () => {
    await d.deps.accounts.createUser({ username: 'alice', password: 'alice-password', email: 'Alice@Example.org' });
    const r = await login('alice@example.org', 'alice-password');
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ description: 'test', created_at: '2026-03-01T10:00:00.000Z' });
    expect(r.json.token).toMatch(/^[\w-]{40,}$/);
    expect(r.json.token_hash).toMatch(/^[0-9a-f]{64}$/);
    const listed = await d.http.withToken(r.json.token).get('/api/boxyard/tokens');
    expect(listed.status).toBe(200);
    expect(JSON.stringify(listed.json)).not.toContain(r.json.token);
    expect(listed.json.tokens).toHaveLength(1);
  });

  it('validates a token from every transport and rejects a bad one', async () => {
    const token = (await login('alice', 'alice-password')).json.token;
    const bearer = await d.http.get('/api/v1/authenticate', { headers: { authorization: `Bearer ${token}` } });
    expect(bearer.status).toBe(200);
    expect(bearer.json).toEqual({ user: { username: 'alice' } });
    expect((await d.http.get('/api/v1/authenticate', { headers: { 'x-atlas-token': token } })).json).toEqual({
      user: { username: 'alice' },
    });
    expect((await d.http.get(`/api/v1/authenticate?access_token=${token}`)).status).toBe(200);
    const bad = await d.http.get('/api/v1/authenticate', { headers: { authorization: 'Bearer nope' } });
    expect(bad.status).toBe(401);
    expect(bad.json).toEqual({ errors: [expect.stringContaining('invalid')], success: false, code: 'unauthorized' });
    expect((await d.http.get('/api/v1/authenticate')).status).toBe(401);
  });

  it('deletes the presented token with 204 and it stops working', async () => {
    const token = (await login('alice', 'alice-password')).json.token;
    const c = d.http.withToken(token);
    expect((await c.delete('/api/v1/authenticate', { headers: { 'content-type': 'application/json' } })).status).toBe(
      204,
    );
    expect((await c.get('/api/v1/authenticate')).status).toBe(401);
    expect((await c.delete('/api/v1/authenticate')).status).toBe(401);
  });

  it('refuses wrong passwords and unknown users alike', async () => {
    const a = await login('alice', 'wrong');
    const b = await login('nobody', 'wrong');
    expect(a.status).toBe(401);
    expect(b.status).toBe(401);
    expect(a.json).toEqual(b.json);
  });

  it('answers 403 naming the problem for malformed token requests, and creates nothing', async () => {
    const before = (await d.http.withToken(d.adminToken).get('/api/boxyard/tokens')).json.tokens.length;
    for (const body of [
      {},
      { user: { login: 'admin' } },
      { user: { login: 5, password: 'x' } },
      { user: 'admin' },
      { __proto__: { admin: true }, user: { login: ['a'], password: {} } },
    ]) {
      const r = await d.http.post('/api/v1/authenticate', body);
      expect(r.status).toBe(403);
      expect(r.json.success).toBe(false);
      expect(r.json.errors[0]).toMatch(/user/);
    }
    const truncated = await d.http.post('/api/v1/authenticate', '{"user":{"login":"admin"', { raw: true });
    expect(truncated.status).toBe(400);
    expect(truncated.json.errors[0]).toMatch(/not valid JSON/);
    const proto = await d.http.post(
      '/api/v1/authenticate',
      '{"__proto__":{"is_admin":1},"user":{"login":"admin","password":"x","__proto__":{"x":1}}}',
      { raw: true },
    );
    expect(proto.status).toBe(401);
    const huge = await d.http.post('/api/v1/authenticate', { user: { login: 'a'.repeat(5000), password: 1e308 } });
    expect(huge.status).toBe(403);
    const array = await d.http.post('/api/v1/authenticate', '[1,2]', { raw: true });
    expect(array.status).toBe(400);
    const empty = await d.http.post('/api/v1/authenticate', '', { raw: true });
    expect(empty.status).toBe(403);
    expect((await d.http.withToken(d.adminToken).get('/api/boxyard/tokens')).json.tokens.length).toBe(before);
  });
});

describe('two-factor', () => {
  it('requires, checks and consumes a TOTP code', async () => {
    const { token, http } = await d.user('totpuser');
    const begin = await http.post('/api/boxyard/two-factor/totp');
    expect(begin.status).toBe(201);
    const totp = new OTPAuth.TOTP({
      secret: OTPAuth.Secret.fromBase32(begin.json.two_factor.secret),
      digits: 6,
      period: 30,
    });
    expect(begin.json.two_factor.otpauth_url).toMatch(/^otpauth:\/\/totp\/Boxyard:totpuser\?/);
    // Not enforced until confirmed.
    expect((await login('totpuser', 'totpuser-password')).status).toBe(200);
    const wrongConfirm = await http.post('/api/boxyard/two-factor/totp/confirm', {
      two_factor: { code: '000000' },
      current_password: 'totpuser-password',
    });
    expect(wrongConfirm.status).toBe(403);
    const confirm = await http.post('/api/boxyard/two-factor/totp/confirm', {
      two_factor: { code: totp.generate({ timestamp: clock.now().getTime() }) },
      current_password: 'totpuser-password',
    });
    expect(confirm.status).toBe(200);
    expect(confirm.json.two_factor.delivery_methods).toEqual(['app']);
    expect(token).toBeTruthy();

    const missing = await login('totpuser', 'totpuser-password');
    expect(missing.status).toBe(406);
    expect(missing.json.errors[0]).toMatch(/two_factor\.code.*app/);
    expect(missing.json.two_factor).toEqual({ default_delivery_method: 'app', delivery_methods: ['app'] });

    expect((await login('totpuser', 'totpuser-password', { two_factor: { code: '123456' } })).status).toBe(401);
    clock.advance(60_000);
    const code = totp.generate({ timestamp: clock.now().getTime() });
    const ok = await login('totpuser', 'totpuser-password', { two_factor: { code } });
    expect(ok.status).toBe(200);
    // The same code works once.
    expect((await login('totpuser', 'totpuser-password', { two_factor: { code } })).status).toBe(401);
  });

  it('sends an SMS code through the sender and accepts it once', async () => {
    const { http } = await d.user('smsuser');
    expect(
      (
        await http.post('/api/boxyard/two-factor/sms', {
          two_factor: { phone: '+15550104321' },
          current_password: 'smsuser-password',
        })
      ).status,
    ).toBe(200);
    const bad = await d.http.post('/api/v1/two-factor/request-code', {
      user: { login: 'smsuser', password: 'wrong-password' },
      two_factor: { delivery_method: 'sms' },
    });
    expect(bad.status).toBe(401);
    const wrongMethod = await d.http.post('/api/v1/two-factor/request-code', {
      user: { login: 'smsuser', password: 'smsuser-password' },
      two_factor: { delivery_method: 'pigeon' },
    });
    expect(wrongMethod.status).toBe(403);
    expect(sentCodes()).toHaveLength(0);
    const r = await d.http.post('/api/v1/two-factor/request-code', {
      user: { login: 'smsuser', password: 'smsuser-password' },
      two_factor: { delivery_method: 'sms' },
    });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ two_factor: { obfuscated_destination: expect.stringMatching(/^\*+4321$/) } });
    const sent = sentCodes();
    expect(sent).toHaveLength(1);
    const [to, code] = sent[0].split(' ');
    expect(to).toBe('+15550104321');
    expect((await login('smsuser', 'smsuser-password')).json.two_factor.delivery_methods).toEqual(['sms']);
    expect((await login('smsuser', 'smsuser-password', { two_factor: { code } })).status).toBe(200);
    expect((await login('smsuser', 'smsuser-password', { two_factor: { code } })).status).toBe(401);
  });
});

describe('rate limits and maintenance', () => {
  it('answers 429 after too many failed logins, with Retry-After', async () => {
    const small = await startTestDaemon({ config: { loginAttempts: 3 } });
    try {
      for (let i = 0; i < 3; i++)
        expect(
          (await small.http.post('/api/v1/authenticate', { user: { login: ADMIN.username, password: 'bad' } })).status,
        ).toBe(401);
      const r = await small.http.post('/api/v1/authenticate', {
        user: { login: ADMIN.username, password: ADMIN.password },
      });
      expect(r.status).toBe(429);
      expect(r.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(r.json.errors[0]).toMatch(/Too many failed logins/);
    } finally {
      await small.stop();
    }
  });

  it('answers 429 past the per-token request rate', async () => {
    const small = await startTestDaemon({ config: { requestsPerMinute: 5 } });
    try {
      const c = small.http.withToken(small.adminToken);
      const statuses: number[] = [];
      for (let i = 0; i < 7; i++) statuses.push((await c.get('/api/v1/authenticate')).status);
      expect(statuses.slice(0, 4)).toEqual([200, 200, 200, 200]);
      expect(statuses.at(-1)).toBe(429);
    } finally {
      await small.stop();
    }
  });

  it('answers 503 in maintenance mode and lets an administrator switch it off', async () => {
    const admin = d.http.withToken(d.adminToken);
    const { http: alice } = await d.user('maintuser');
    expect((await alice.put('/api/boxyard/settings', { settings: { maintenance: true } })).status).toBe(403);
    expect((await admin.put('/api/boxyard/settings', { settings: { maintenance: true } })).json).toEqual({
      settings: {
        maintenance: true,
        offline: false,
        offline_forced: false,
        pull_through_upstream_id: null,
        cache_max_age_minutes: 30,
        mirror_allowed_hosts: [],
      },
    });
    // Who is signed in still answers (the UI learns there who may switch it off); the rest does not.
    expect((await alice.get('/api/boxyard/user')).json.user).toMatchObject({ username: 'maintuser', admin: false });
    const r = await alice.get('/api/boxyard/tokens');
    expect(r.status).toBe(503);
    expect(r.json.errors[0]).toMatch(/maintenance/);
    const v2 = await alice.get('/api/v2/organizations');
    expect(v2.status).toBe(503);
    expect(v2.json.errors[0]).toMatchObject({ status: '503' });
    expect((await d.http.get('/healthz')).status).toBe(200);
    expect((await admin.put('/api/boxyard/settings', { settings: { maintenance: false } })).status).toBe(200);
    expect((await alice.get('/api/boxyard/user')).status).toBe(200);
  });
});
