import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as OTPAuth from 'otpauth';
import { startTestDaemon, ADMIN, type TestDaemon } from '../helpers/daemon';
import { ManualClock } from '../../daemon/src/lib/clock';

// Sign-in and accounts: changing a password, an e-mail address or two-factor needs the
// current password (or a code); a new password revokes the other tokens; a failed PATCH changes
// nothing; an administrator resets another user's password on its own path.
let d: TestDaemon;
const clock = new ManualClock(new Date('2026-05-01T08:00:00Z'));
const login = (user: string, password: string, extra: Record<string, unknown> = {}) =>
  d.http.post('/api/v1/authenticate', { user: { login: user, password }, ...extra });
const row = (username: string) =>
  d.deps.db.selectFrom('users').selectAll().where('username', '=', username).executeTakeFirstOrThrow();

beforeAll(async () => {
  d = await startTestDaemon({ clock, config: { loginAttempts: 4 } });
});
afterAll(async () => {
  await d.stop();
});

describe('PATCH /api/boxyard/users/:name (own account)', () => {
  it('changes the password only with the current one, and revokes the other tokens', async () => {
    const { http: main } = await d.user('pat');
    const other = d.http.withToken((await login('pat', 'pat-password')).json.token);
    const before = await row('pat');

    const missing = await main.patch('/api/boxyard/users/pat', { user: { password: 'pat-new-password' } });
    expect(missing.status).toBe(403);
    expect(missing.json.errors[0]).toMatch(/current_password/);
    const wrong = await main.patch('/api/boxyard/users/pat', {
      user: { password: 'pat-new-password' },
      current_password: 'not-my-password',
    });
    expect(wrong.status).toBe(403);
    expect(wrong.json.errors[0]).toMatch(/current password is wrong/);
    expect((await row('pat')).password_hash).toBe(before.password_hash);
    expect((await other.get('/api/v1/authenticate')).status).toBe(200);

    const ok = await main.patch('/api/boxyard/users/pat', {
      user: { password: 'pat-new-password' },
      current_password: 'pat-password',
    });
    expect(ok.status).toBe(200);
    expect(ok.json.user.username).toBe('pat');
    expect((await main.get('/api/v1/authenticate')).status).toBe(200);
    expect((await other.get('/api/v1/authenticate')).status).toBe(401);
    expect(
      await d.deps.db.selectFrom('api_tokens').select('id').where('user_id', '=', before.id).execute(),
    ).toHaveLength(1);
    expect((await login('pat', 'pat-password')).status).toBe(401);
    expect((await login('pat', 'pat-new-password')).status).toBe(200);
  });

  it('refuses a new password under 12 characters before anything else', async () => {
    const { http } = await d.user('shorty');
    const r = await http.patch('/api/boxyard/users/shorty', {
      user: { password: 'elevenchars' },
      current_password: 'shorty-password',
    });
    expect(r.status).toBe(403);
    expect(r.json.errors[0]).toMatch(/user\.password: must be at least 12 characters/);
    expect((await login('shorty', 'shorty-password')).status).toBe(200);
  });

  it('changes the e-mail address only with the current password; the profile needs none', async () => {
    const { http } = await d.user('emma');
    expect((await http.patch('/api/boxyard/users/emma', { user: { profile_markdown: 'hello' } })).status).toBe(200);
    const refused = await http.patch('/api/boxyard/users/emma', { user: { email: 'emma@example.org' } });
    expect(refused.status).toBe(403);
    expect((await row('emma')).email).toBeNull();
    const ok = await http.patch('/api/boxyard/users/emma', {
      user: { email: 'emma@example.org' },
      current_password: 'emma-password',
    });
    expect(ok.status).toBe(200);
    expect(ok.json.user).toMatchObject({ email: 'emma@example.org', profile_markdown: 'hello' });
  });

  it('answers 422 for an e-mail address in use and changes nothing of the request', async () => {
    const admin = d.http.withToken(d.adminToken);
    await admin.post('/api/boxyard/users', {
      user: { username: 'holder', password: 'holder-password', email: 'taken@example.org' },
    });
    const { http } = await d.user('dup');
    const before = await row('dup');
    const r = await http.patch('/api/boxyard/users/dup', {
      user: { email: 'Taken@Example.org', profile_markdown: 'changed' },
      current_password: 'dup-password',
    });
    expect(r.status).toBe(422);
    expect(r.json).toEqual({ errors: [expect.stringMatching(/already in use/)], success: false, code: 'conflict' });
    expect(await row('dup')).toEqual(before);
    // An administrator's change of another user is refused the same way.
    const byAdmin = await admin.patch('/api/boxyard/users/dup', {
      user: { email: 'taken@example.org', profile_markdown: 'changed' },
    });
    expect(byAdmin.status).toBe(422);
    expect(await row('dup')).toEqual(before);
  });

  it('counts wrong current passwords like failed logins', async () => {
    const { http } = await d.user('guessed');
    for (let i = 0; i < 4; i++) {
      expect(
        (
          await http.patch('/api/boxyard/users/guessed', {
            user: { password: 'guessed-new-password' },
            current_password: `guess-${i}`,
          })
        ).status,
      ).toBe(403);
    }
    const r = await http.patch('/api/boxyard/users/guessed', {
      user: { password: 'guessed-new-password' },
      current_password: 'guessed-password',
    });
    expect(r.status).toBe(429);
    expect((await login('guessed', 'guessed-password')).status).toBe(429);
  });
});

describe('an administrator and other users’ passwords', () => {
  it('sets them on PUT …/password (revoking their tokens), never through PATCH', async () => {
    const admin = d.http.withToken(d.adminToken);
    const { http: reset } = await d.user('resetme');
    const viaPatch = await admin.patch('/api/boxyard/users/resetme', { user: { password: 'admin-chosen-password' } });
    expect(viaPatch.status).toBe(403);
    expect(viaPatch.json.errors[0]).toMatch(/PUT \/api\/boxyard\/users\/resetme\/password/);
    expect(
      (await reset.put('/api/boxyard/users/resetme/password', { user: { password: 'self-chosen-password' } })).status,
    ).toBe(403);
    expect(
      (await admin.put('/api/boxyard/users/admin/password', { user: { password: 'admin-new-password' } })).status,
    ).toBe(403);
    expect((await admin.put('/api/boxyard/users/resetme/password', { user: { password: 'short' } })).status).toBe(403);

    const ok = await admin.put('/api/boxyard/users/resetme/password', { user: { password: 'admin-chosen-password' } });
    expect(ok.status).toBe(200);
    expect((await reset.get('/api/v1/authenticate')).status).toBe(401);
    expect((await login('resetme', 'admin-chosen-password')).status).toBe(200);
    expect((await login(ADMIN.username, ADMIN.password)).status).toBe(200);
  });
});

describe('two-factor changes', () => {
  const totpOf = (secret: string) =>
    new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30 });
  const codeOf = (secret: string) => totpOf(secret).generate({ timestamp: clock.now().getTime() });

  it('need the current password (or a code) to switch on, replace or off', async () => {
    const { http } = await d.user('tfa');
    const first = (await http.post('/api/boxyard/two-factor/totp')).json.two_factor.secret;
    const noProof = await http.post('/api/boxyard/two-factor/totp/confirm', { two_factor: { code: codeOf(first) } });
    expect(noProof.status).toBe(403);
    expect((await http.get('/api/boxyard/two-factor')).json.two_factor.delivery_methods).toEqual([]);
    expect(
      (
        await http.post('/api/boxyard/two-factor/totp/confirm', {
          two_factor: { code: codeOf(first) },
          current_password: 'tfa-password',
        })
      ).status,
    ).toBe(200);

    // Setting up a new authenticator leaves the old one on until the new one is confirmed.
    clock.advance(30_000);
    const second = (await http.post('/api/boxyard/two-factor/totp')).json.two_factor.secret;
    expect(second).not.toBe(first);
    expect((await http.get('/api/boxyard/two-factor')).json.two_factor.delivery_methods).toEqual(['app']);
    expect((await login('tfa', 'tfa-password')).status).toBe(406);
    expect((await login('tfa', 'tfa-password', { two_factor: { code: codeOf(first) } })).status).toBe(200);

    // A code of the authenticator in use proves it is the user, as the password does.
    clock.advance(30_000);
    const replaced = await http.post('/api/boxyard/two-factor/totp/confirm', {
      two_factor: { code: codeOf(second) },
      current_code: codeOf(first),
    });
    expect(replaced.status).toBe(200);
    clock.advance(30_000);
    expect((await login('tfa', 'tfa-password', { two_factor: { code: codeOf(first) } })).status).toBe(401);
    expect((await login('tfa', 'tfa-password', { two_factor: { code: codeOf(second) } })).status).toBe(200);

    expect((await http.delete('/api/boxyard/two-factor/app')).status).toBe(403);
    expect(
      (await http.delete('/api/boxyard/two-factor/app', { body: { current_password: 'wrong-password-x' } })).status,
    ).toBe(403);
    expect((await http.get('/api/boxyard/two-factor')).json.two_factor.delivery_methods).toEqual(['app']);
    expect(
      (await http.delete('/api/boxyard/two-factor/app', { body: { current_password: 'tfa-password' } })).status,
    ).toBe(204);
    expect((await login('tfa', 'tfa-password')).status).toBe(200);

    expect((await http.post('/api/boxyard/two-factor/sms', { two_factor: { phone: '+15550100000' } })).status).toBe(
      403,
    );
    expect((await http.get('/api/boxyard/two-factor')).json.two_factor.delivery_methods).toEqual([]);
  });
});
