import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as OTPAuth from 'otpauth';
import { backendEnv } from '../helpers/backend';
import { orgNamed, startTestDaemon, ADMIN, type TestDaemon } from '../helpers/daemon';

// `boxyard user …` reads passwords from a prompt or --password-stdin, never argv, refuses
// short ones, and keeps the last administrator and an organization's last owner.
const BIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'boxyard.mjs');
let d: TestDaemon;
beforeAll(async () => {
  d = await startTestDaemon();
});
afterAll(async () => {
  await d.stop();
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The real CLI on the test daemon's data folder. `stdin` is piped in (not a terminal); with
 * `answers`, the command runs on a pseudo-terminal (`script`), as for a person at a prompt, and
 * each answer is typed once its prompt shows, as a person would.
 */
async function cli(args: string[], stdin = '', answers?: Array<[RegExp, string]>): Promise<Run> {
  const env = {
    ...process.env,
    BOXYARD_DATA: d.dataDir,
    BOXYARD_LOG_LEVEL: 'silent',
    ...(await backendEnv(d.dataDir)),
  };
  const [cmd, argv] = answers
    ? ['script', ['-qec', [process.execPath, BIN, ...args].map((a) => `'${a}'`).join(' '), '/dev/null']]
    : [process.execPath, [BIN, ...args]];
  return new Promise((resolve, reject) => {
    const child = spawn(cmd as string, argv as string[], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const pending = [...(answers ?? [])];
    child.stdout.on('data', (b: Buffer) => {
      stdout += b.toString();
      while (pending.length > 0 && pending[0][0].test(stdout)) {
        const [, answer] = pending[0];
        pending.shift();
        child.stdin.write(`${answer}\n`);
      }
    });
    child.stderr.on('data', (b: Buffer) => {
      stderr += b.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    if (answers) child.on('exit', () => child.stdin.end());
    else child.stdin.end(stdin);
  });
}
const login = (user: string, password: string) =>
  d.http.post('/api/v1/authenticate', { user: { login: user, password } });
const exists = async (name: string) =>
  (await d.deps.db.selectFrom('users').select('id').where('username', '=', name).executeTakeFirst()) !== undefined;

describe('boxyard user create | password', () => {
  it('reads the password from standard input with --password-stdin', async () => {
    const r = await cli(['user', 'create', 'piped', '--password-stdin'], 'piped-user-password\n');
    expect(r).toMatchObject({ code: 0, stdout: 'created user piped\n' });
    expect((await login('piped', 'piped-user-password')).status).toBe(200);
  });

  it('asks on the terminal, twice, when there is one', async () => {
    const r = await cli(['user', 'create', 'prompted'], '', [
      [/New password: $/, 'prompted-password'],
      [/Repeat the password: $/, 'prompted-password'],
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^New password: \r?\nRepeat the password: \r?\ncreated user prompted\r?\n$/);
    expect(r.stdout).not.toContain('prompted-password');
    expect((await login('prompted', 'prompted-password')).status).toBe(200);
    const differ = await cli(['user', 'create', 'typo'], '', [
      [/New password: $/, 'typo-password-one'],
      [/Repeat the password: $/, 'typo-password-two'],
    ]);
    expect(differ.code).toBe(1);
    expect(differ.stdout).toMatch(/the two passwords differ/);
    expect(await exists('typo')).toBe(false);
  });

  it('refuses a password on the command line, a short one, and a missing terminal, creating nothing', async () => {
    const argv = await cli(['user', 'create', 'argv', '--password', 'argv-user-password']);
    expect(argv.code).toBe(1);
    expect(argv.stderr).toMatch(/passwords are not taken on the command line/);
    const short = await cli(['user', 'create', 'argv', '--password-stdin'], 'short-pw\n');
    expect(short.code).toBe(1);
    expect(short.stderr).toMatch(/at least 12 characters/);
    const noTty = await cli(['user', 'create', 'argv']);
    expect(noTty.code).toBe(1);
    expect(noTty.stderr).toMatch(/--password-stdin/);
    expect(await exists('argv')).toBe(false);
    expect((await cli(['user', 'create', '--help'])).stdout).not.toMatch(/--password </);
  });

  it('sets a password with `user password`, revoking the user’s tokens', async () => {
    const { http } = await d.user('forgetful');
    const r = await cli(['user', 'password', 'forgetful', '--password-stdin'], 'forgetful-new-password');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/password of forgetful changed; their API tokens were revoked/);
    expect((await http.get('/api/v1/authenticate')).status).toBe(401);
    expect((await login('forgetful', 'forgetful-password')).status).toBe(401);
    expect((await login('forgetful', 'forgetful-new-password')).status).toBe(200);
  });
});

describe('boxyard user reset-two-factor', () => {
  it("switches a user's two-factor off, so a lost phone does not lock them out", async () => {
    const { http } = await d.user('lostphone');
    const secret = (await http.post('/api/boxyard/two-factor/totp')).json.two_factor.secret;
    const code = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) }).generate();
    expect(
      (
        await http.post('/api/boxyard/two-factor/totp/confirm', {
          two_factor: { code },
          current_password: 'lostphone-password',
        })
      ).status,
    ).toBe(200);
    expect((await login('lostphone', 'lostphone-password')).status).toBe(406);
    const r = await cli(['user', 'reset-two-factor', 'lostphone']);
    expect(r).toMatchObject({ code: 0, stdout: expect.stringMatching(/two-factor of lostphone switched off/) });
    expect((await login('lostphone', 'lostphone-password')).status).toBe(200);
  });
});

describe('boxyard user | org keep the last administrator and owner', () => {
  it('refuses to delete or demote the last administrator', async () => {
    const del = await cli(['user', 'delete', ADMIN.username]);
    expect(del.code).toBe(1);
    expect(del.stderr).toMatch(/"admin" is the last administrator/);
    const demote = await cli(['user', 'admin', ADMIN.username, '--remove']);
    expect(demote.code).toBe(1);
    expect(demote.stderr).toMatch(/last administrator/);
    expect((await login(ADMIN.username, ADMIN.password)).status).toBe(200);
    expect((await cli(['user', 'admin', 'piped'])).stdout).toBe('piped is now an administrator\n');
    expect((await cli(['user', 'admin', ADMIN.username, '--remove'])).code).toBe(0);
    expect((await cli(['user', 'list'])).stdout).toMatch(/^admin\n[\s\S]*piped \(admin\)/m);
  });

  it('refuses to demote, remove or delete the last owner of an organization', async () => {
    await d.user('owner1', { orgs: ['solo'] });
    await d.user('member1');
    expect((await cli(['org', 'add-member', 'solo', 'member1'])).code).toBe(0);
    for (const args of [
      ['org', 'add-member', 'solo', 'owner1', '--role', 'member'],
      ['org', 'remove-member', 'solo', 'owner1'],
      ['user', 'delete', 'owner1'],
    ]) {
      const r = await cli(args);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr).toMatch(/"owner1" is the last owner of "solo"/);
    }
    expect((await cli(['org', 'add-member', 'solo', 'owner1', '--role', 'admin'])).code).toBe(1);
    const org = await orgNamed(d, 'solo');
    expect((await d.deps.orgs.members(org)).map((m) => `${m.username}:${m.role}`)).toEqual([
      'member1:member',
      'owner1:owner',
    ]);
  });
});
