import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../daemon/src/lib/clock';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient } from '../helpers/http';
import {
  JSONAPI,
  createAgentToken,
  createOrg,
  createPool,
  eventually,
  spawnAgent,
  type AgentProcess,
} from '../helpers/agents';

/**
 * Real `boxyard agent` processes (node bin/boxyard.mjs agent) against a real daemon. The daemon's
 * clock is a ManualClock: the watchdog only moves when the test advances it and calls tick().
 */
const clock = new ManualClock();
const SECOND = 1000;
const dataDir = mkdtempSync(join(tmpdir(), 'boxyard-agents-process-'));
const config = { agentPingSeconds: 1, agentUnknownAfterSeconds: 60, agentErroredAfterSeconds: 300 };
let d: TestDaemon;
let alice: HttpClient;
let pool: { id: string };
const running: AgentProcess[] = [];

beforeAll(async () => {
  d = await startTestDaemon({ clock, dataDir, config });
  alice = (await d.user('alice')).http.withContentType(JSONAPI);
  await createOrg(alice, 'acme');
  pool = await createPool(alice, 'acme', 'pool');
});
afterAll(async () => {
  for (const a of running) if (a.proc.exitCode === null) a.proc.kill('SIGKILL');
  await d.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const agentRow = (id: string) => d.deps.db.selectFrom('agents').selectAll().where('id', '=', id).executeTakeFirst();

async function start(name: string, token?: string): Promise<{ agent: AgentProcess; id: string; tokenId: string }> {
  const t = token ? { token, id: '' } : await createAgentToken(alice, pool.id);
  const agent = spawnAgent(d.url, t.token, name);
  running.push(agent);
  const [, id] = await agent.waitFor(/registered as (agent-\S+) in pool/);
  return { agent, id, tokenId: t.id };
}

describe('boxyard agent processes', () => {
  it('registers, keeps reporting, and reports exited on SIGTERM (exit code 0)', async () => {
    const { agent, id } = await start('proc-1');
    expect(await agentRow(id)).toMatchObject({ name: 'proc-1', status: 'idle', pool_id: pool.id });
    // It reports on the 1 s interval: after the clock moves, the next report records the new time.
    clock.advance(30 * SECOND);
    const moved = clock.now().toISOString();
    await eventually(async () => (await agentRow(id))?.last_ping_at === moved);
    agent.proc.kill('SIGTERM');
    expect(await agent.exited).toBe(0);
    expect(agent.output()).toContain(`reported exited for ${id}`);
    expect((await agentRow(id))?.status).toBe('exited');
  });

  it('stops with exit code 2 when its token is revoked', async () => {
    const { agent, id, tokenId } = await start('proc-2');
    expect((await alice.delete(`/api/v2/authentication-tokens/${tokenId}`)).status).toBe(204);
    expect(await agent.exited).toBe(2);
    expect(agent.output()).toMatch(/agent stopped: .*unknown or was revoked/);
    expect((await agentRow(id))?.status).toBe('exited');
  });

  it('is turned unknown then errored by the watchdog while silent, and told to stop when it comes back', async () => {
    const { agent, id } = await start('proc-3');
    agent.proc.kill('SIGSTOP');
    clock.advance(61 * SECOND);
    await d.deps.agents.watchdog.tick();
    expect((await agentRow(id))?.status).toBe('unknown');
    clock.advance(300 * SECOND);
    await d.deps.agents.watchdog.tick();
    expect((await agentRow(id))?.status).toBe('errored');
    agent.proc.kill('SIGCONT');
    expect(await agent.exited).toBe(2);
    expect(agent.output()).toMatch(/agent stopped: .*errored/);
    expect((await alice.delete(`/api/v2/agents/${id}`)).status).toBe(204);
  });

  it('retries while the daemon is away and carries on when it is back', async () => {
    const { agent, id } = await start('proc-4');
    const port = Number(new URL(d.url).port);
    await d.close();
    await agent.waitFor(/daemon unreachable/);
    d = await startTestDaemon({ clock, dataDir, config: { ...config, port } });
    clock.advance(10 * SECOND);
    const moved = clock.now().toISOString();
    await eventually(async () => (await agentRow(id))?.last_ping_at === moved, 30_000);
    expect((await agentRow(id))?.status).toBe('idle');
    expect(agent.proc.exitCode).toBeNull();
    agent.proc.kill('SIGINT');
    expect(await agent.exited).toBe(0);
    expect((await agentRow(id))?.status).toBe('exited');
  }, 60_000);

  it('exits with code 2 at once for a token that never existed', async () => {
    const agent = spawnAgent(d.url, 'not-a-token', 'proc-5');
    running.push(agent);
    expect(await agent.exited).toBe(2);
    expect(agent.output()).toMatch(/agent stopped: .*unknown or was revoked/);
  });

  it('refuses a malformed --url at once (exit code 1) instead of retrying forever', async () => {
    const agent = spawnAgent('daemon.lan:4780', 'whatever', 'proc-6');
    running.push(agent);
    expect(await agent.exited).toBe(1);
    expect(agent.output()).toContain('--url must be an http(s) URL');
  });
});
