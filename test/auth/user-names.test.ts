import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';

/**
 * Usernames as someone types one (adding a member to an organization): any signed-in user, up to ten, starting with
 * what was typed, which matches itself (`%` and `_` included). Usernames are public already: every user's profile
 * answers anyone at /api/v1/user/:username.
 */
let d: TestDaemon;
beforeAll(async () => {
  d = await startTestDaemon();
  for (const name of ['mia', 'mila', 'Milo', 'max', 'm_x']) await d.user(name);
  for (let i = 0; i < 12; i++) await d.user(`team${String(i).padStart(2, '0')}`);
});
afterAll(async () => {
  await d.stop();
});

describe('GET /api/boxyard/user-names', () => {
  it('answers the usernames starting with what was typed, any case, by name', async () => {
    const { http } = await d.user('olga');
    const r = await http.get('/api/boxyard/user-names?q=MI');
    expect(r.status, r.text).toBe(200);
    expect(r.json).toEqual({ users: [{ username: 'mia' }, { username: 'mila' }, { username: 'Milo' }] });
    // `_` is a character here, not LIKE's any-one: only m_x.
    expect((await http.get('/api/boxyard/user-names?q=m_')).json.users).toEqual([{ username: 'm_x' }]);
    expect((await http.get('/api/boxyard/user-names?q=%25')).json.users).toEqual([]);
    const many = await http.get('/api/boxyard/user-names?q=team');
    expect(many.json.users).toHaveLength(10);
    expect(many.json.users[0]).toEqual({ username: 'team00' });
  });

  it('is for signed-in users only, and needs something typed', async () => {
    expect((await d.http.get('/api/boxyard/user-names?q=mi')).status).toBe(401);
    const { http } = await d.user('pia');
    const empty = await http.get('/api/boxyard/user-names?q=');
    expect(empty.status).toBe(403);
    expect(empty.json.code).toBe('bad_parameter');
  });
});
