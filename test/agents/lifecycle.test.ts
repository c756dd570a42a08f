import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../daemon/src/lib/clock';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient } from '../helpers/http';
import { JSONAPI, createAgentToken, createOrg, createPool } from '../helpers/agents';

/** The agent protocol and status rules, driven over HTTP with a ManualClock and watchdog.tick(). */
let d: TestDaemon;
let alice: HttpClient;
let bob: HttpClient;
let pool: { id: string };
let agentHttp: HttpClient;
const clock = new ManualClock();
const SECOND = 1000;

beforeAll(async () => {
  d = await startTestDaemon({
    clock,
    config: { agentUnknownAfterSeconds: 60, agentErroredAfterSeconds: 300, agentPingSeconds: 7 },
  });
  alice = (await d.user('alice')).http.withContentType(JSONAPI);
  bob = (await d.user('bob')).http.withContentType(JSONAPI);
  await createOrg(alice, 'acme');
  pool = await createPool(alice, 'acme', 'pool');
  agentHttp = d.http.withToken((await createAgentToken(alice, pool.id)).token);
});
afterAll(() => d.stop());

const register = async (name: string) => {
  const r = await agentHttp.post('/api/agent/register', { name });
  expect(r.status).toBe(201);
  return r.json.agent.id as string;
};
const report = (id: string, status: string) => agentHttp.post(`/api/agent/agents/${id}/status`, { status });
const status = async (id: string) => (await alice.get(`/api/v2/agents/${id}`)).json.data.attributes.status;
const agentCount = async () =>
  (await alice.get('/api/v2/organizations/acme/agent-pools')).json.data[0].attributes['agent-count'];
const tick = () => d.deps.agents.watchdog.tick();

describe('agent lifecycle', () => {
  let a: string;

  it('registers an idle agent with a name, address and ping time, and tells it the interval', async () => {
    const r = await agentHttp.post('/api/agent/register', { name: 'runner-1' });
    expect(r.status).toBe(201);
    expect(r.json).toMatchObject({
      agent: { status: 'idle', name: 'runner-1', pool_id: pool.id },
      action: 'continue',
      ping_interval_seconds: 7,
    });
    a = r.json.agent.id;
    expect(a).toMatch(/^agent-/);
    const shown = await alice.get(`/api/v2/agents/${a}`);
    expect(shown.status).toBe(200);
    expect(shown.headers.get('content-type')).toContain(JSONAPI);
    expect(shown.json.data).toEqual({
      type: 'agents',
      id: a,
      attributes: {
        name: 'runner-1',
        status: 'idle',
        'ip-address': '127.0.0.1',
        'last-ping-at': clock.now().toISOString(),
      },
      relationships: { 'agent-pool': { data: { type: 'agent-pools', id: pool.id } } },
      links: { self: `/api/v2/agents/${a}` },
    });
    expect(await agentCount()).toBe(1);
  });

  it('takes busy and idle reports and refuses to delete a live agent with 412 and the rule', async () => {
    clock.advance(5 * SECOND);
    const r = await report(a, 'busy');
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ action: 'continue', ping_interval_seconds: 7 });
    expect(await status(a)).toBe('busy');
    const del = await alice.delete(`/api/v2/agents/${a}`, { headers: { 'content-type': JSONAPI } });
    expect(del.status).toBe(412);
    expect(del.json.errors[0]).toMatchObject({ status: '412', title: 'precondition failed' });
    expect(del.json.errors[0].detail).toContain('unknown, errored, exited');
    expect(await status(a)).toBe('busy');
    expect((await report(a, 'idle')).json.action).toBe('continue');
    expect(await status(a)).toBe('idle');
  });

  it('turns a silent agent unknown (still counted), and back to idle when it reports again', async () => {
    clock.advance(59 * SECOND);
    expect(await tick()).toEqual({ unknown: 0, errored: 0 });
    expect(await status(a)).toBe('idle');
    clock.advance(2 * SECOND);
    // Asserting state, not tick()'s counts: the daemon's own interval may run the same tick first.
    await tick();
    expect(await status(a)).toBe('unknown');
    expect(await agentCount()).toBe(1);
    expect((await report(a, 'idle')).json.action).toBe('continue');
    expect(await status(a)).toBe('idle');
  });

  it('turns an unknown agent errored after the configured time; a late report is told to stop', async () => {
    clock.advance(61 * SECOND);
    await tick();
    expect(await status(a)).toBe('unknown');
    clock.advance(299 * SECOND);
    expect((await tick()).errored).toBe(0);
    expect(await status(a)).toBe('unknown');
    clock.advance(2 * SECOND);
    await tick();
    expect(await status(a)).toBe('errored');
    expect(await agentCount()).toBe(0);
    const late = await report(a, 'idle');
    expect(late.status).toBe(200);
    expect(late.json.action).toBe('stop');
    expect(late.json.reason).toContain('errored');
    expect(await status(a)).toBe('errored');
  });

  it('deletes an errored agent (204); its reports then answer 404 with stop', async () => {
    const del = await alice.delete(`/api/v2/agents/${a}`);
    expect(del.status).toBe(204);
    expect((await alice.get(`/api/v2/agents/${a}`)).status).toBe(404);
    const late = await report(a, 'idle');
    expect(late.status).toBe(404);
    expect(late.json.action).toBe('stop');
  });

  it('marks an agent exited on its graceful report; exited is final and deletable', async () => {
    const b = await register('runner-2');
    const r = await report(b, 'exited');
    expect(r.json.action).toBe('stop');
    expect(await status(b)).toBe('exited');
    expect((await report(b, 'idle')).json.action).toBe('stop');
    expect(await status(b)).toBe('exited');
    expect((await alice.delete(`/api/v2/agents/${b}`)).status).toBe(204);
  });

  it('deletes an unknown agent (204)', async () => {
    const c = await register('runner-3');
    clock.advance(61 * SECOND);
    await tick();
    expect(await status(c)).toBe('unknown');
    expect((await alice.delete(`/api/v2/agents/${c}`)).status).toBe(204);
    expect(await d.deps.db.selectFrom('agents').selectAll().where('id', '=', c).executeTakeFirst()).toBeUndefined();
  });

  it("refuses bad tokens (401 with stop), other tokens' agents (404) and bad reports (403)", async () => {
    const noToken = await d.http.post('/api/agent/register', { name: 'x' });
    expect(noToken.status).toBe(401);
    expect(noToken.json.action).toBe('stop');
    expect((await d.http.withToken('nope').post('/api/agent/register', {})).status).toBe(401);
    const mine = await register('runner-4');
    const otherToken = d.http.withToken((await createAgentToken(alice, pool.id)).token);
    expect((await otherToken.post(`/api/agent/agents/${mine}/status`, { status: 'idle' })).status).toBe(404);
    const bad = await report(mine, 'sleeping');
    expect(bad.status).toBe(403);
    expect(await status(mine)).toBe('idle');
  });
});

describe('listing agents', () => {
  it("lists a pool's agents with paging and filter[last-ping-since]", async () => {
    clock.advance(10 * SECOND);
    // Five seconds before the next registration, written with a +02:00 offset.
    const mid = new Date(clock.now().getTime() - 5 * SECOND + 2 * 3600 * SECOND).toISOString().replace('Z', '+02:00');
    const fresh = await register('fresh');
    const all = await alice.get(`/api/v2/agent-pools/${pool.id}/agents?page[size]=100`);
    expect(all.status).toBe(200);
    expect(all.json.data.every((x: { type: string }) => x.type === 'agents')).toBe(true);
    const total = all.json.meta.pagination['total-count'];
    expect(total).toBe(all.json.data.length);
    const since = await alice.get(
      `/api/v2/agent-pools/${pool.id}/agents?filter%5Blast-ping-since%5D=${encodeURIComponent(clock.now().toISOString())}`,
    );
    expect(since.json.data.map((x: { id: string }) => x.id)).toEqual([fresh]);
    const offset = await alice.get(
      `/api/v2/agent-pools/${pool.id}/agents?filter[last-ping-since]=${encodeURIComponent(mid)}`,
    );
    expect(offset.json.data.map((x: { id: string }) => x.id)).toEqual([fresh]);
    const paged = await alice.get(`/api/v2/agent-pools/${pool.id}/agents?page[size]=1&page[number]=2`);
    expect(paged.json.data).toHaveLength(1);
    expect(paged.json.meta.pagination).toMatchObject({ 'current-page': 2, 'page-size': 1, 'total-count': total });
    const past = await alice.get(`/api/v2/agent-pools/${pool.id}/agents?page[number]=50`);
    expect(past.json.data).toEqual([]);
    expect(past.json.meta.pagination).toMatchObject({ 'current-page': 50, 'total-count': total });
  });

  it('shows each report and registration on the next read of a page (pages are kept in memory)', async () => {
    const page = async () => (await alice.get(`/api/v2/agent-pools/${pool.id}/agents?page[size]=100`)).json;
    const before = await page();
    const live = before.data.find((x: { attributes: { status: string } }) => x.attributes.status === 'idle');
    expect(live).toBeDefined();
    expect((await page()).data).toEqual(before.data);
    clock.advance(SECOND);
    expect((await report(live.id, 'busy')).status).toBe(200);
    const after = (await page()).data.find((x: { id: string }) => x.id === live.id);
    expect(after.attributes).toMatchObject({ status: 'busy', 'last-ping-at': clock.now().toISOString() });
    const added = await register('late');
    const grown = await page();
    expect(grown.meta.pagination['total-count']).toBe(before.meta.pagination['total-count'] + 1);
    expect(grown.data.map((x: { id: string }) => x.id)).toContain(added);
  });

  it('answers 400 for a bad filter[last-ping-since] and 404 to strangers', async () => {
    const bad = await alice.get(`/api/v2/agent-pools/${pool.id}/agents?filter[last-ping-since]=yesterday`);
    expect(bad.status).toBe(400);
    expect(bad.json.errors[0].source).toEqual({ parameter: 'filter[last-ping-since]' });
    const anAgent = (await alice.get(`/api/v2/agent-pools/${pool.id}/agents`)).json.data[0].id;
    expect((await bob.get(`/api/v2/agent-pools/${pool.id}/agents`)).status).toBe(404);
    expect((await bob.get(`/api/v2/agents/${anAgent}`)).status).toBe(404);
    expect((await bob.delete(`/api/v2/agents/${anAgent}`)).status).toBe(404);
    expect((await alice.get('/api/v2/agents/nonexisting')).status).toBe(404);
    expect((await alice.get('/api/v2/agent-pools/nonexisting/agents')).status).toBe(404);
  });
});

describe('pings kept in memory (daemon/src/agents/pings.ts)', () => {
  it('are written when the daemon stops: a daemon started anew on the same data shows the last one', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'boxyard-pings-'));
    const c = new ManualClock();
    try {
      const first = await startTestDaemon({ clock: c, dataDir });
      const carol = (await first.user('carol')).http.withContentType(JSONAPI);
      await createOrg(carol, 'lab');
      const p = await createPool(carol, 'lab', 'pool');
      const agent = first.http.withToken((await createAgentToken(carol, p.id)).token);
      const id = (await agent.post('/api/agent/register', { name: 'r' })).json.agent.id as string;
      c.advance(7 * SECOND);
      expect((await agent.post(`/api/agent/agents/${id}/status`, { status: 'idle' })).status).toBe(200);
      c.advance(7 * SECOND);
      expect((await agent.post(`/api/agent/agents/${id}/status`, { status: 'idle' })).status).toBe(200);
      const last = c.now().toISOString();
      await first.stop();
      const again = await startTestDaemon({ clock: c, dataDir });
      try {
        const shown = await again.http.withToken(again.adminToken).get(`/api/v2/agents/${id}`);
        expect(shown.status).toBe(200);
        expect(shown.json.data.attributes).toMatchObject({ status: 'idle', 'last-ping-at': last });
      } finally {
        await again.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('agents registering at once', () => {
  it('are all taken, each with a number of its own in the order of the pool', async () => {
    await createOrg(alice, 'crowd');
    const other = await createPool(alice, 'crowd', 'crowd');
    const crowd = d.http.withToken((await createAgentToken(alice, other.id)).token);
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, i) => crowd.post('/api/agent/register', { name: `crowd-${i}` })),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(16).fill(201));
    const rows = await d.deps.db.selectFrom('agents').select(['id', 'seq']).where('pool_id', '=', other.id).execute();
    expect(rows).toHaveLength(16);
    expect(new Set(rows.map((r) => r.seq)).size).toBe(16);
  });
});
