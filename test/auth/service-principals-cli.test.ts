import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';

// `boxyard service-principal create/list/revoke` on the data folder of a running daemon, which then honours them.
let d: TestDaemon;
const cli = (args: string[]) =>
  runCli(['service-principal', ...args, '--data', d.dataDir], { BOXYARD_LOG_LEVEL: 'silent' });
const exchange = (id: string, secret: string) =>
  d.http.post(
    '/oauth2/token',
    new URLSearchParams({ grant_type: 'client_credentials', client_id: id, client_secret: secret }).toString(),
    {
      raw: true,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    },
  );

beforeAll(async () => {
  d = await startTestDaemon();
  await d.user('opal', { orgs: ['cli-org'] });
});
afterAll(() => d.stop());

describe('boxyard service-principal', () => {
  it('creates (--json), lists and revokes; the daemon takes the secret and then refuses it', async () => {
    const made = await cli(['create', 'cli-org', '--name', 'ci runner', '--json']);
    expect(made.code, made.stderr).toBe(0);
    const p = JSON.parse(made.stdout) as { client_id: string; client_secret: string };
    expect(Object.keys(p).sort()).toEqual(['client_id', 'client_secret']);
    expect((await exchange(p.client_id, p.client_secret)).status).toBe(200);

    const list = await cli(['list', 'cli-org']);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain(p.client_id);
    expect(list.stdout).toContain('ci runner');
    expect(list.stdout).not.toContain(p.client_secret);

    const revoked = await cli(['revoke', 'cli-org', p.client_id]);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect((await exchange(p.client_id, p.client_secret)).status).toBe(401);
  });

  it('prints the id and secret without --json', async () => {
    const made = await cli(['create', 'cli-org', '--name', 'plain']);
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toMatch(/^client id: +\S+\nclient secret: +\S+\n/);
  });

  it.each([
    [['create', 'no-such-org', '--name', 'x'], /no-such-org not found/],
    [['create', 'cli-org', '--name', ''], /--name/],
    [['revoke', 'cli-org', 'no-such-client'], /no service principal "no-such-client"/],
  ])('fails with a message and changes nothing: %j', async (args, message) => {
    const before = (await d.deps.db.selectFrom('service_principals').select('id').execute()).length;
    const r = await cli(args);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(message);
    expect((await d.deps.db.selectFrom('service_principals').select('id').execute()).length).toBe(before);
  });
});
