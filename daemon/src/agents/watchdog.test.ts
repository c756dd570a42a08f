import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../store/db';
import { ManualClock } from '../lib/clock';
import { AgentsRepository } from './agents-repository';
import { AgentWatchdog } from './watchdog';

let dir: string;
let store: Store;
let repo: AgentsRepository;
const clock = new ManualClock(new Date('2026-01-01T00:00:00.000Z'));

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'boxyard-watchdog-'));
  store = openStore(join(dir, 'db.sqlite'));
  repo = new AgentsRepository(store.db);
  const now = clock.now().toISOString();
  await store.db.insertInto('organizations').values({ id: 'org-1', name: 'o', name_key: 'o', email: null, created_at: now, updated_at: now }).execute();
  await store.db.insertInto('agent_pools').values({ id: 'apool-1', organization_id: 'org-1', name: 'p', name_key: 'p', organization_scoped: 1, seq: 1, created_at: now }).execute();
  for (const [id, status] of [['agent-idle', 'idle'], ['agent-busy', 'busy'], ['agent-exited', 'exited']] as const) {
    await repo.insertAgent({ id, pool_id: 'apool-1', token_id: null, name: null, status, ip_address: '127.0.0.1', last_ping_at: now, created_at: now });
  }
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const statuses = async () => Object.fromEntries((await store.db.selectFrom('agents').select(['id', 'status']).execute()).map((r) => [r.id, r.status]));

describe('AgentWatchdog.tick', () => {
  it('turns live agents unknown after the silence limit and errored after the further limit; final ones stay', async () => {
    const dog = new AgentWatchdog(repo, clock, { unknownAfterSeconds: 60, erroredAfterSeconds: 300 });
    expect(await dog.tick()).toEqual({ unknown: 0, errored: 0 });
    clock.advance(60_001);
    expect(await dog.tick()).toEqual({ unknown: 2, errored: 0 });
    expect(await statuses()).toEqual({ 'agent-idle': 'unknown', 'agent-busy': 'unknown', 'agent-exited': 'exited' });
    clock.advance(299_000);
    expect(await dog.tick()).toEqual({ unknown: 0, errored: 0 });
    clock.advance(1_000);
    expect(await dog.tick()).toEqual({ unknown: 0, errored: 2 });
    expect(await statuses()).toEqual({ 'agent-idle': 'errored', 'agent-busy': 'errored', 'agent-exited': 'exited' });
  });

  it('does not touch an agent that reported in time', async () => {
    const dog = new AgentWatchdog(repo, clock, { unknownAfterSeconds: 60, erroredAfterSeconds: 300 });
    clock.advance(50_000);
    expect(await repo.report('agent-idle', { status: 'busy', last_ping_at: clock.now().toISOString(), ip_address: '127.0.0.1' })).toBe(true);
    clock.advance(20_000);
    await dog.tick();
    expect((await statuses())['agent-idle']).toBe('busy');
    expect(await repo.report('agent-exited', { status: 'idle', last_ping_at: clock.now().toISOString(), ip_address: '127.0.0.1' })).toBe(false);
  });
});
