import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OverviewAnswer } from '../../daemon/src/contract/wire/overview';
import { gettingStartedSteps } from '../../renderer/src/components/getting-started-steps';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient } from '../helpers/http';

// The overview's getting-started checklist, from the daemon's own answer: an administrator's steps include adding a
// user, anyone else's do not (they may not make users); each step is ticked from the counts the caller may see.

let d: TestDaemon;
let alice: HttpClient;

const steps = async (http: HttpClient) =>
  gettingStartedSteps(OverviewAnswer.parse((await http.get('/api/boxyard/overview')).json).overview).map(
    (s) => `${s.key}${s.done ? ' done' : ''}`,
  );

beforeAll(async () => {
  d = await startTestDaemon();
  alice = (await d.user('alice', { orgs: ['acme'] })).http;
});
afterAll(() => d?.stop());

describe('the getting-started steps', () => {
  it("an administrator's include adding a user, done once there is a second one", async () => {
    expect(await steps(d.http.withToken(d.adminToken))).toEqual([
      'organization done',
      'box',
      'upload',
      'release',
      'user done',
      'pool',
      'agent',
    ]);
  });

  it("a member's leave it out", async () => {
    expect(await steps(alice)).toEqual(['organization done', 'box', 'upload', 'release', 'pool', 'agent']);
    expect(await steps((await d.user('bob')).http)).toEqual([
      'organization',
      'box',
      'upload',
      'release',
      'pool',
      'agent',
    ]);
  });
});
