import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { ManualClock } from '../../daemon/src/lib/clock';
import { AgentStatusCountsAnswer } from '../../daemon/src/contract/wire/agent-counts';
import { OrganizationJson } from '../../daemon/src/contract/wire/jsonapi';
import type { UpdateOrganizationDocument } from '../../daemon/src/contract/bodies/jsonapi';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient } from '../helpers/http';
import { JSONAPI, createAgentToken, createPool, setPoolLimit } from '../helpers/agents';
import { conforms, conformsData } from '../helpers/contract';

// GET /api/boxyard/organizations/:name/agent-status-counts: the web UI's pool list shows agents
// per status for a page of pools in one request (the JSON:API's agent-count is live agents only).
// Statuses come the real way: agent reports, and the watchdog after a ManualClock moves.

let d: TestDaemon;
let alice: HttpClient;
let bob: HttpClient;
const clock = new ManualClock();
const SECOND = 1000;
const pools: Record<'p1' | 'p2' | 'empty' | 'foreign', string> = { p1: '', p2: '', empty: '', foreign: '' };

async function agentsOf(poolId: string, owner = alice) {
  const http = d.http.withToken((await createAgentToken(owner.withContentType(JSONAPI), poolId)).token);
  return {
    register: async (name: string) => {
      const r = await http.post('/api/agent/register', { name });
      expect(r.status, r.text).toBe(201);
      return r.json.agent.id as string;
    },
    report: async (id: string, status: string) =>
      expect((await http.post(`/api/agent/agents/${id}/status`, { status })).status).toBe(200),
  };
}

beforeAll(async () => {
  d = await startTestDaemon({ clock, config: { agentUnknownAfterSeconds: 60, agentErroredAfterSeconds: 300 } });
  const a = await d.user('alice', { orgs: ['acme'] });
  const b = await d.user('bob', { orgs: ['other'] });
  alice = a.http;
  bob = b.http;
  const api = alice.withContentType(JSONAPI);
  await setPoolLimit(api, 'acme', 5);
  pools.p1 = (await createPool(api, 'acme', 'p1')).id;
  pools.p2 = (await createPool(api, 'acme', 'p2')).id;
  pools.empty = (await createPool(api, 'acme', 'empty')).id;
  pools.foreign = (await createPool(bob.withContentType(JSONAPI), 'other', 'theirs')).id;

  const p1 = await agentsOf(pools.p1);
  const p2 = await agentsOf(pools.p2);
  const foreign = await agentsOf(pools.foreign, bob);
  // Silent from the start: unknown after 60 s, errored 300 s after that.
  await p1.register('goes-errored');
  clock.advance(200 * SECOND);
  await p1.register('goes-unknown');
  await foreign.register('not-alices');
  clock.advance(200 * SECOND);
  await d.deps.agents.watchdog.tick();
  await p1.register('idle');
  await p1.report(await p1.register('busy'), 'busy');
  await p1.report(await p1.register('exited-1'), 'exited');
  await p2.report(await p2.register('exited-2'), 'exited');
  await p2.register('idle-2');
});
afterAll(() => d.stop());

const counts = (http: HttpClient, query = '') =>
  http.get(`/api/boxyard/organizations/acme/agent-status-counts${query}`);

describe('agent status counts per pool', () => {
  it("counts every status of each of the organization's pools in one answer; pools without agents are absent", async () => {
    const r = conforms(AgentStatusCountsAnswer, await counts(alice));
    expect(r.status_counts).toEqual({
      [pools.p1]: { idle: 1, busy: 1, unknown: 1, errored: 1, exited: 1 },
      [pools.p2]: { idle: 1, busy: 0, unknown: 0, errored: 0, exited: 1 },
    });
  });

  it('agrees with the agents each pool lists', async () => {
    const listed = (await alice.withContentType(JSONAPI).get(`/api/v2/agent-pools/${pools.p1}/agents`)).json
      .data as Array<{ attributes: { status: string } }>;
    const r = (await counts(alice)).json.status_counts[pools.p1] as Record<string, number>;
    for (const [status, n] of Object.entries(r))
      expect(listed.filter((x) => x.attributes.status === status).length, status).toBe(n);
  });

  it("counts only the pools asked for, and never another organization's", async () => {
    const r = await counts(alice, `?pools=${pools.p2},${pools.empty},${pools.foreign}`);
    expect(r.status, r.text).toBe(200);
    expect(r.json.status_counts).toEqual({ [pools.p2]: { idle: 1, busy: 0, unknown: 0, errored: 0, exited: 1 } });
    expect((await counts(alice, '?pools=')).json.status_counts).toEqual((await counts(alice)).json.status_counts);
  });

  it('follows a status change at once', async () => {
    const p2 = await agentsOf(pools.p2);
    const id = await p2.register('late');
    await p2.report(id, 'busy');
    expect((await counts(alice, `?pools=${pools.p2}`)).json.status_counts[pools.p2]).toEqual({
      idle: 1,
      busy: 1,
      unknown: 0,
      errored: 0,
      exited: 1,
    });
  });

  it('answers 404 to a non-member and 401 without a token, like every organization endpoint', async () => {
    const r = await counts(bob);
    expect(r.status).toBe(404);
    expect(r.json).toMatchObject({ success: false, code: 'not_found' });
    expect((await counts(d.http)).status).toBe(401);
  });

  it('refuses more pool ids than a page with 403 bad_parameter', async () => {
    const ids = Array.from({ length: 101 }, (_, i) => `apool-${i}`).join(',');
    const r = await counts(alice, `?pools=${ids}`);
    expect(r.status).toBe(403);
    expect(r.json).toMatchObject({ success: false, code: 'bad_parameter' });
  });
});

describe('the organization as the UI reads and changes it (JSON:API)', () => {
  it("carries the agent-pool limit and the defaults; an owner changes them with the contract's document", async () => {
    const api = alice.withContentType(JSONAPI);
    const before = conformsData(OrganizationJson, await api.get('/api/v2/organizations/acme'));
    expect(before.attributes).toMatchObject({ 'agent-pool-limit': 5, 'default-execution-mode': 'remote' });
    expect(before.relationships['default-agent-pool'].data).toBeNull();
    const after = conformsData(
      OrganizationJson,
      await api.patch('/api/v2/organizations/acme', {
        data: {
          type: 'organizations',
          attributes: { 'agent-pool-limit': 6, 'default-execution-mode': 'agent' },
          relationships: { 'default-agent-pool': { data: { type: 'agent-pools', id: pools.p1 } } },
        },
      } satisfies z.input<typeof UpdateOrganizationDocument>),
    );
    expect(after.attributes).toMatchObject({ 'agent-pool-limit': 6, 'default-execution-mode': 'agent' });
    expect(after.relationships['default-agent-pool'].data).toEqual({ type: 'agent-pools', id: pools.p1 });
  });
});
