import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../daemon/src/lib/clock';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient } from '../helpers/http';

/**
 * Recovery codes: issued once when two-factor is switched on, each signs in once in place of a code (on Vagrant
 * Cloud's sign-in and wherever a code is asked for), a new set replaces the old, and they go with two-factor.
 */
let d: TestDaemon;
const clock = new ManualClock(new Date('2026-03-01T10:00:00Z'));
const login = (user: string, code?: string) =>
  d.http.post('/api/v1/authenticate', {
    user: { login: user, password: `${user}-password` },
    ...(code ? { two_factor: { code } } : {}),
  });

beforeAll(async () => {
  d = await startTestDaemon({ clock });
});
afterAll(async () => {
  await d.stop();
});

async function switchOnApp(http: HttpClient, user: string) {
  const begin = await http.post('/api/boxyard/two-factor/totp');
  const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(begin.json.two_factor.secret) });
  return http.post('/api/boxyard/two-factor/totp/confirm', {
    two_factor: { code: totp.generate({ timestamp: clock.now().getTime() }) },
    current_password: `${user}-password`,
  });
}

describe('recovery codes', () => {
  it('comes as ten codes when two-factor is switched on, each signing in once in place of a code', async () => {
    const { http } = await d.user('rita');
    expect((await http.get('/api/boxyard/two-factor')).json.two_factor).toEqual({
      delivery_methods: [],
      recovery_codes_left: 0,
    });
    const on = await switchOnApp(http, 'rita');
    expect(on.status, on.text).toBe(200);
    const codes = on.json.two_factor.recovery_codes as string[];
    expect(codes).toHaveLength(10);
    for (const c of codes) expect(c).toMatch(/^[a-z2-7]{5}-[a-z2-7]{5}$/);
    expect(new Set(codes).size).toBe(10);
    expect(on.json.two_factor.recovery_codes_left).toBe(10);
    // Shown once: the daemon keeps only their hashes.
    const state = await http.get('/api/boxyard/two-factor');
    expect(state.json.two_factor).toEqual({ delivery_methods: ['app'], recovery_codes_left: 10 });

    expect((await login('rita')).status).toBe(406);
    // Typed as people type them: upper case, without the dash, with spaces.
    const typed = ` ${codes[0].replace('-', ' ').toUpperCase()} `;
    const signedIn = await login('rita', typed);
    expect(signedIn.status, signedIn.text).toBe(200);
    expect((await login('rita', codes[0])).status).toBe(401);
    expect((await login('rita', 'abcde-fghij')).status).toBe(401);
    expect((await http.get('/api/boxyard/two-factor')).json.two_factor.recovery_codes_left).toBe(9);
    // A credential change that asks for a code takes one too.
    const email = await http.patch('/api/boxyard/users/rita', {
      user: { email: 'rita@lab.example' },
      current_code: codes[1],
    });
    expect(email.status, email.text).toBe(200);
    expect((await http.get('/api/boxyard/two-factor')).json.two_factor.recovery_codes_left).toBe(8);
  });

  it('gives a new set in place of the old one, with the password; switching on another method keeps them', async () => {
    const { http } = await d.user('sam');
    const first = (await switchOnApp(http, 'sam')).json.two_factor.recovery_codes as string[];
    const sms = await http.post('/api/boxyard/two-factor/sms', {
      two_factor: { phone: '+15550100000' },
      current_password: 'sam-password',
    });
    expect(sms.status).toBe(200);
    expect(sms.json.two_factor.recovery_codes).toBeUndefined();
    expect(sms.json.two_factor.recovery_codes_left).toBe(10);

    expect((await http.post('/api/boxyard/two-factor/recovery-codes', {})).status).toBe(403);
    const renewed = await http.post('/api/boxyard/two-factor/recovery-codes', { current_password: 'sam-password' });
    expect(renewed.status, renewed.text).toBe(201);
    const second = renewed.json.two_factor.recovery_codes as string[];
    expect(second).toHaveLength(10);
    expect(second.filter((c) => first.includes(c))).toEqual([]);
    expect((await login('sam', first[0])).status).toBe(401);
    expect((await login('sam', second[0])).status).toBe(200);
  });

  it('go with two-factor: none are left once every method is off, and none are given while it is off', async () => {
    const { http } = await d.user('tom');
    const codes = (await switchOnApp(http, 'tom')).json.two_factor.recovery_codes as string[];
    const off = await http.delete('/api/boxyard/two-factor/app', { body: { current_code: codes[0] } });
    expect(off.status, off.text).toBe(204);
    expect((await http.get('/api/boxyard/two-factor')).json.two_factor).toEqual({
      delivery_methods: [],
      recovery_codes_left: 0,
    });
    // No longer a second factor: signing in needs the password alone, and a leftover code is no password.
    expect((await login('tom')).status).toBe(200);
    const refused = await http.post('/api/boxyard/two-factor/recovery-codes', { current_password: 'tom-password' });
    // The dialect of /api/boxyard, as Vagrant Cloud's: 403 with code validation.
    expect(refused.status, refused.text).toBe(403);
    expect(refused.json).toMatchObject({ code: 'validation', errors: [expect.stringMatching(/Two-factor is off/)] });
  });
});
