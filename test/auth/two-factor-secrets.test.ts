import { afterAll, describe, expect, it } from 'vitest';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import * as OTPAuth from 'otpauth';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import { ManualClock } from '../../daemon/src/lib/clock';

// TOTP secrets are sealed (AES-256-GCM) with DATA/secret.key, created 0600 on first start;
// plaintext secrets of older databases are sealed at start.
const dataDir = mkdtempSync(join(tmpdir(), 'boxyard-secrets-'));
const clock = new ManualClock(new Date('2026-06-01T12:00:00Z'));
let d: TestDaemon | undefined;
afterAll(async () => {
  await d?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});
/** The daemon an earlier test started on the data folder (the tests run in order, each after the last). */
const running = (): TestDaemon => {
  if (!d) throw new Error('no daemon runs on the data folder: the test that starts it failed');
  return d;
};

const codeOf = (secret: string) =>
  new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) }).generate({ timestamp: clock.now().getTime() });
const rowOf = (daemon: TestDaemon, username: string) =>
  daemon.deps.db
    .selectFrom('two_factor')
    .innerJoin('users', 'users.id', 'two_factor.user_id')
    .select(['two_factor.user_id', 'totp_secret', 'totp_pending_secret', 'totp_enabled'])
    .where('users.username', '=', username)
    .executeTakeFirstOrThrow();
const login = (daemon: TestDaemon, user: string, code?: string) =>
  daemon.http.post('/api/v1/authenticate', {
    user: { login: user, password: `${user}-password` },
    ...(code ? { two_factor: { code } } : {}),
  });

describe('TOTP secrets at rest', () => {
  let secret = '';

  it('are sealed with a 0600 secret.key created beside the database', async () => {
    d = await startTestDaemon({ dataDir, clock });
    const key = join(dataDir, 'secret.key');
    expect(statSync(key).mode & 0o777).toBe(0o600);
    expect(readFileSync(key, 'utf8')).toMatch(/^[0-9a-f]{64}\n$/);

    const { http } = await d.user('sealed');
    secret = (await http.post('/api/boxyard/two-factor/totp')).json.two_factor.secret;
    const pending = await rowOf(d, 'sealed');
    expect(pending.totp_pending_secret).toMatch(/^v1\./);
    expect(pending.totp_pending_secret).not.toContain(secret);
    expect(
      (
        await http.post('/api/boxyard/two-factor/totp/confirm', {
          two_factor: { code: codeOf(secret) },
          current_password: 'sealed-password',
        })
      ).status,
    ).toBe(200);
    const on = await rowOf(d, 'sealed');
    expect(on).toMatchObject({ totp_enabled: 1, totp_pending_secret: null });
    expect(on.totp_secret).toMatch(/^v1\./);
    for (const f of ['boxyard.db', 'boxyard.db-wal'])
      expect(readFileSync(join(dataDir, f)).includes(Buffer.from(secret)), f).toBe(false);
    clock.advance(30_000);
    expect((await login(d, 'sealed', codeOf(secret))).status).toBe(200);
  });

  it('open only in their own row', async () => {
    const daemon = running();
    const { http } = await daemon.user('thief');
    await http.post('/api/boxyard/two-factor/totp');
    const stolen = (await rowOf(daemon, 'sealed')).totp_secret;
    await daemon.deps.db
      .updateTable('two_factor')
      .set({ totp_secret: stolen, totp_enabled: 1 })
      .where('user_id', '=', (await rowOf(daemon, 'thief')).user_id)
      .execute();
    clock.advance(30_000);
    expect((await login(daemon, 'thief', codeOf(secret))).status).toBe(401);
  });

  it('stored in plaintext (databases before migration 009) are sealed at start and keep working', async () => {
    await running().stop();
    d = undefined;
    const plain = new OTPAuth.Secret({ size: 20 }).base32;
    const raw = new SqliteDatabase(join(dataDir, 'boxyard.db'));
    const userId = (raw.prepare("SELECT id FROM users WHERE username = 'thief'").get() as { id: string }).id;
    raw
      .prepare('UPDATE two_factor SET totp_secret = ?, totp_pending_secret = ?, totp_enabled = 1 WHERE user_id = ?')
      .run(plain, plain, userId);
    raw.close();
    // A key others may read is made owner-only again.
    chmodSync(join(dataDir, 'secret.key'), 0o644);

    d = await startTestDaemon({ dataDir, clock });
    expect(statSync(join(dataDir, 'secret.key')).mode & 0o777).toBe(0o600);
    const row = await rowOf(d, 'thief');
    expect(row.totp_secret).toMatch(/^v1\./);
    expect(row.totp_pending_secret).toMatch(/^v1\./);
    clock.advance(30_000);
    expect((await login(d, 'thief', codeOf(plain))).status).toBe(200);
    // The secrets sealed before the restart still open with the same key.
    expect((await login(d, 'sealed', codeOf(secret))).status).toBe(200);
  });

  it('a damaged key file stops the start with what to do, and is not replaced', async () => {
    await running().stop();
    d = undefined;
    writeFileSync(join(dataDir, 'secret.key'), 'not a key\n', { mode: 0o600 });
    await expect(startTestDaemon({ dataDir, clock })).rejects.toThrow(
      /secret\.key is not a Boxyard secret key .*Restore it from a backup/,
    );
    expect(readFileSync(join(dataDir, 'secret.key'), 'utf8')).toBe('not a key\n');
  });
});
