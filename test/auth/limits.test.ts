import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes, scryptSync } from 'node:crypto';
import { startTestDaemon, ADMIN, type TestDaemon } from '../helpers/daemon';
import { countingHasher, postFrom } from '../helpers/from-address';
import { PASSWORD_PARAMS, type ScryptParams } from '../../daemon/src/lib/crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { loadConfig } from '../../daemon/src/config';
import { startDaemon } from '../../daemon/src/main';
import { HttpClient } from '../helpers/http';

// Sign-in and accounts: limits counted before the hash, per address, address+account
// and account; the same work for unknown logins; the scrypt cost and rehashing.
const ATTEMPTS = 5;
let d: TestDaemon;
let derived: ScryptParams[];
const login = (from: string, user: string, password: string) =>
  postFrom(d.url, from, '/api/v1/authenticate', { user: { login: user, password } });

beforeAll(async () => {
  const counting = countingHasher();
  derived = counting.derived;
  d = await startTestDaemon({ config: { loginAttempts: ATTEMPTS }, passwords: counting.hasher });
});
afterAll(async () => {
  await d.stop();
});

describe('login limits', () => {
  it('counts a burst of parallel attempts before hashing: only the allowed number is checked', async () => {
    derived.length = 0;
    const all = await Promise.all(
      Array.from({ length: 60 }, () => login('127.0.0.1', ADMIN.username, 'wrong-password-guess')),
    );
    const statuses = all.map((r) => r.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(ATTEMPTS);
    expect(statuses.filter((s) => s === 429)).toHaveLength(60 - ATTEMPTS);
    // Exactly one key was derived per checked attempt: the 55 refused ones cost no hash.
    expect(derived).toHaveLength(ATTEMPTS);
    const refused = all.find((r) => r.status === 429);
    assert(refused, 'no attempt was refused with 429');
    expect(refused.headers['retry-after']).toMatch(/^\d+$/);
    expect(refused.json.errors[0]).toMatch(/Too many failed logins for this account from this address/);
  });

  it('never locks an account out from one address: the owner signs in from another', async () => {
    // 127.0.0.1 used up its attempts on admin above; even the right password waits there…
    expect((await login('127.0.0.1', ADMIN.username, ADMIN.password)).status).toBe(429);
    // …but the account itself is not locked.
    const elsewhere = await login('127.0.0.2', ADMIN.username, ADMIN.password);
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.json.token).toBeTruthy();
  });

  it('backs an account off for at most a minute when several addresses guess it', async () => {
    await d.user('victim');
    // Three addresses, each within its own limit, reach the account's limit (3 × ATTEMPTS a minute).
    for (const from of ['127.0.0.3', '127.0.0.4', '127.0.0.5']) {
      for (let i = 0; i < ATTEMPTS; i++) expect((await login(from, 'victim', `guess-number-${i}`)).status).toBe(401);
    }
    const r = await login('127.0.0.6', 'victim', 'victim-password');
    expect(r.status).toBe(429);
    expect(r.json.errors[0]).toMatch(/Too many failed logins for this account\./);
    expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(r.headers['retry-after'])).toBeLessThanOrEqual(60);
  });

  it('limits one address across many accounts (password spraying)', async () => {
    const spray = await startTestDaemon({ config: { loginAttempts: 1 } });
    try {
      // 1 attempt per account from an address, 10 per address: ten names, then the address waits.
      for (let i = 0; i < 10; i++)
        expect(
          (
            await postFrom(spray.url, '127.0.0.7', '/api/v1/authenticate', {
              user: { login: `name${i}`, password: 'spray-password' },
            })
          ).status,
        ).toBe(401);
      const next = await postFrom(spray.url, '127.0.0.7', '/api/v1/authenticate', {
        user: { login: ADMIN.username, password: ADMIN.password },
      });
      expect(next.status).toBe(429);
      expect(next.json.errors[0]).toMatch(/from this address/);
      expect(
        (
          await postFrom(spray.url, '127.0.0.8', '/api/v1/authenticate', {
            user: { login: ADMIN.username, password: ADMIN.password },
          })
        ).status,
      ).toBe(200);
    } finally {
      await spray.stop();
    }
  });

  it('gives a successful sign-in its count back', async () => {
    const { http } = await d.user('steady');
    expect(http).toBeTruthy();
    // More successes than the limit allows failures: none is refused.
    for (let i = 0; i < ATTEMPTS + 2; i++)
      expect((await login('127.0.0.9', 'steady', 'steady-password')).status).toBe(200);
  });
});

describe('unknown logins', () => {
  it('do the same work as a wrong password: one key derived with the current parameters', async () => {
    await d.user('known');
    derived.length = 0;
    const unknown = await login('127.0.0.10', 'nobody-here', 'some-password-1');
    expect(derived).toEqual([PASSWORD_PARAMS]);
    derived.length = 0;
    const wrong = await login('127.0.0.10', 'known', 'some-password-1');
    expect(derived).toEqual([PASSWORD_PARAMS]);
    expect(unknown.status).toBe(401);
    expect(wrong.status).toBe(401);
    expect(unknown.json).toEqual(wrong.json);
  });
});

describe('password hashes', () => {
  const hashOf = async (username: string) =>
    (
      await d.deps.db
        .selectFrom('users')
        .select('password_hash')
        .where('username', '=', username)
        .executeTakeFirstOrThrow()
    ).password_hash;

  it('are scrypt N=2^14, r=8, p=5 with the parameters in the stored string', async () => {
    await d.user('fresh');
    expect(PASSWORD_PARAMS).toEqual({ ln: 14, r: 8, p: 5 });
    expect(await hashOf('fresh')).toMatch(/^\$scrypt\$ln=14,r=8,p=5\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
  });

  it('made before the PHC format (scrypt$salt$hash) still sign in, and are replaced by current ones then', async () => {
    await d.user('legacy');
    const salt = randomBytes(16);
    const old = `scrypt$${salt.toString('hex')}$${scryptSync('legacy-old-password', salt, 32).toString('hex')}`;
    await d.deps.db.updateTable('users').set({ password_hash: old }).where('username', '=', 'legacy').execute();
    derived.length = 0;
    expect((await login('127.0.0.11', 'legacy', 'legacy-old-password')).status).toBe(200);
    // Checked with the old parameters (Node's defaults), then hashed again with the current ones.
    expect(derived).toEqual([{ ln: 14, r: 8, p: 1 }, PASSWORD_PARAMS]);
    expect(await hashOf('legacy')).toMatch(/^\$scrypt\$ln=14,r=8,p=5\$/);
    expect((await login('127.0.0.11', 'legacy', 'legacy-old-password')).status).toBe(200);
    expect((await login('127.0.0.11', 'legacy', 'wrong-old-password')).status).toBe(401);
  });
});

describe('the first administrator', () => {
  it('gets a generated password of 24 characters, or refuses a chosen one under 12', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'boxyard-first-'));
    try {
      const config = loadConfig(
        {},
        { dataDir, host: '127.0.0.1', port: 0, requestsPerMinute: 0, maxConnectionsPerAddress: 100_000 },
      );
      const short = loadConfig({}, { ...config, dataDir: join(dataDir, 'short'), adminPassword: 'elevenchars' });
      await expect(startDaemon(short, { log: pino({ level: 'silent' }) })).rejects.toThrow(
        /BOXYARD_ADMIN_PASSWORD .*at least 12 characters/,
      );
      const first = await startDaemon(config, { log: pino({ level: 'silent' }) });
      try {
        expect(first.generatedAdminPassword).toMatch(/^[\w-]{24}$/);
        const r = await new HttpClient(first.url).post('/api/v1/authenticate', {
          user: { login: 'admin', password: first.generatedAdminPassword },
        });
        expect(r.status).toBe(200);
      } finally {
        await first.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
