import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';

// An organization always keeps an owner and the daemon always keeps an administrator.
let d: TestDaemon;
beforeAll(async () => {
  d = await startTestDaemon();
});
afterAll(async () => {
  await d.stop();
});

const admins = async () =>
  (await d.deps.db.selectFrom('users').select('username').where('is_admin', '=', 1).orderBy('username').execute()).map(
    (u) => u.username,
  );
const roles = async (org: string) => {
  const shown = await d.http.withToken(d.adminToken).get(`/api/boxyard/organizations/${org}`);
  return (shown.json.organization.members as Array<{ username: string; role: string }>).map(
    (m) => `${m.username}:${m.role}`,
  );
};

describe('the last owner of an organization', () => {
  it('cannot be made a member, removed, or deleted as a user', async () => {
    const { http: olive } = await d.user('olive', { orgs: ['acme'] });
    await d.user('mike');
    expect(
      (await olive.put('/api/boxyard/organizations/acme/members/mike', { member: { role: 'member' } })).status,
    ).toBe(200);

    const demote = await olive.put('/api/boxyard/organizations/acme/members/olive', { member: { role: 'member' } });
    expect(demote.status).toBe(422);
    expect(demote.json.errors[0]).toMatch(/"olive" is the last owner of "acme"\. Make another member an owner first/);
    const remove = await olive.delete('/api/boxyard/organizations/acme/members/olive');
    expect(remove.status).toBe(422);
    const deleteUser = await d.http.withToken(d.adminToken).delete('/api/boxyard/users/olive');
    expect(deleteUser.status).toBe(422);
    expect(deleteUser.json.errors[0]).toMatch(/last owner of "acme"/);
    expect(await roles('acme')).toEqual(['mike:member', 'olive:owner']);

    // With a second owner, the first may step down.
    expect(
      (await olive.put('/api/boxyard/organizations/acme/members/mike', { member: { role: 'owner' } })).status,
    ).toBe(200);
    expect(
      (await olive.put('/api/boxyard/organizations/acme/members/olive', { member: { role: 'member' } })).status,
    ).toBe(200);
    expect(await roles('acme')).toEqual(['mike:owner', 'olive:member']);
  });

  it('stays when two owners step down at the same time: one of them is refused', async () => {
    const { http: ann } = await d.user('ann', { orgs: ['duo'] });
    const { http: ben } = await d.user('ben');
    expect((await ann.put('/api/boxyard/organizations/duo/members/ben', { member: { role: 'owner' } })).status).toBe(
      200,
    );
    const [a, b] = await Promise.all([
      ann.put('/api/boxyard/organizations/duo/members/ann', { member: { role: 'member' } }),
      ben.delete('/api/boxyard/organizations/duo/members/ben'),
    ]);
    // Either may win (on PostgreSQL the database decides): exactly one is refused.
    expect([
      [200, 422],
      [422, 204],
    ]).toContainEqual([a.status, b.status]);
    expect((await roles('duo')).filter((r) => r.endsWith(':owner'))).toHaveLength(1);
  });
});

describe('the last administrator', () => {
  it('cannot be deleted or demoted; with another administrator, can', async () => {
    const admin = d.http.withToken(d.adminToken);
    const del = await admin.delete('/api/boxyard/users/admin');
    expect(del.status).toBe(422);
    expect(del.json).toEqual({
      errors: [expect.stringMatching(/"admin" is the last administrator\. Make another user an administrator first/)],
      success: false,
      code: 'last_admin',
    });
    const demote = await admin.patch('/api/boxyard/users/admin', {
      user: { admin: false, profile_markdown: 'not me' },
    });
    expect(demote.status).toBe(422);
    expect(await admins()).toEqual(['admin']);
    expect((await admin.get('/api/boxyard/users/admin')).json.user).toMatchObject({
      admin: true,
      profile_markdown: '',
    });

    expect(
      (
        await admin.post('/api/boxyard/users', {
          user: { username: 'deputy', password: 'deputy-password', admin: true },
        })
      ).status,
    ).toBe(201);
    expect((await admin.patch('/api/boxyard/users/deputy', { user: { admin: false } })).status).toBe(200);
    expect(await admins()).toEqual(['admin']);
  });

  it('stays when two administrators are demoted at the same time: one change is refused', async () => {
    const admin = d.http.withToken(d.adminToken);
    expect((await admin.patch('/api/boxyard/users/deputy', { user: { admin: true } })).status).toBe(200);
    const [first, second] = [await d.deps.accounts.userNamed('admin'), await d.deps.accounts.userNamed('deputy')];
    const results = await Promise.allSettled([
      d.deps.accounts.setAdmin(first, false),
      d.deps.accounts.setAdmin(second, false),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect((results.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason).toMatchObject({
      code: 'last_admin',
    });
    expect(await admins()).toHaveLength(1);
  });
});
