import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Kysely, SqliteDialect } from 'kysely';
import { openStore, type SqliteStore } from '../store/db';
import type { Database } from '../store/schema';
import { ManualClock } from '../lib/clock';
import { AgentsRepository } from './repository';
import { AgentTokensRepository } from '../pools/tokens-repository';
import { AgentWatchdog } from './watchdog';

let dir: string;
let store: SqliteStore;
let repo: AgentsRepository;
const clock = new ManualClock(new Date('2026-01-01T00:00:00.000Z'));

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'boxyard-watchdog-'));
  store = openStore(join(dir, 'db.sqlite'));
  repo = new AgentsRepository(store.db, store.versions, (err) => {
    throw err;
  });
  const now = clock.now().toISOString();
  await store.db
    .insertInto('organizations')
    .values({ id: 'org-1', name: 'o', name_key: 'o', email: null, created_at: now, updated_at: now })
    .execute();
  await store.db
    .insertInto('agent_pools')
    .values({
      id: 'apool-1',
      organization_id: 'org-1',
      name: 'p',
      name_key: 'p',
      organization_scoped: 1,
      seq: 1,
      created_at: now,
    })
    .execute();
  await new AgentTokensRepository(store.db, store.versions).insertToken({
    id: 'at-1',
    pool_id: 'apool-1',
    token_hash: 'h',
    created_by: null,
    created_at: now,
    last_used_at: null,
  });
  for (const [id, status] of [
    ['agent-idle', 'idle'],
    ['agent-busy', 'busy'],
    ['agent-exited', 'exited'],
  ] as const) {
    await repo.insertAgent({
      id,
      pool_id: 'apool-1',
      token_id: 'at-1',
      name: null,
      status,
      ip_address: '127.0.0.1',
      last_ping_at: now,
      created_at: now,
    });
  }
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const statuses = async () =>
  Object.fromEntries(
    (await store.db.selectFrom('agents').select(['id', 'status']).execute()).map((r) => [r.id, r.status]),
  );

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
    expect(
      await repo.report('agent-idle', 'at-1', {
        status: 'busy',
        last_ping_at: clock.now().toISOString(),
        ip_address: '127.0.0.1',
      }),
    ).toBe(true);
    clock.advance(20_000);
    await dog.tick();
    expect((await statuses())['agent-idle']).toBe('busy');
    expect(
      await repo.report('agent-exited', 'at-1', {
        status: 'idle',
        last_ping_at: clock.now().toISOString(),
        ip_address: '127.0.0.1',
      }),
    ).toBe(false);
  });
});

describe('at scale', () => {
  it('moves hundreds of agents with one statement a tick, and takes a report in one (two when its status changes)', async () => {
    const queries: string[] = [];
    const logged = new Kysely<Database>({
      dialect: new SqliteDialect({ database: store.raw }),
      log: (e) => {
        if (e.level === 'query') queries.push(e.query.sql);
      },
    });
    const counted = new AgentsRepository(logged, store.versions, (err) => {
      throw err;
    });
    const now = clock.now();
    const longAgo = new Date(now.getTime() - 400_000).toISOString();
    for (let i = 0; i < 300; i++) {
      const [status, at] = i % 2 ? (['idle', now.toISOString()] as const) : (['unknown', longAgo] as const);
      await repo.insertAgent({
        id: `agent-${i}`,
        pool_id: 'apool-1',
        token_id: 'at-1',
        name: null,
        status,
        ip_address: '127.0.0.1',
        last_ping_at: at,
        created_at: at,
      });
    }
    const dog = new AgentWatchdog(counted, clock, { unknownAfterSeconds: 60, erroredAfterSeconds: 300 });
    clock.advance(70_000);
    queries.length = 0;
    expect(await dog.tick()).toEqual({ unknown: 152, errored: 150 });
    expect(queries).toHaveLength(1);
    expect(queries.every((q) => q.startsWith('update "agents"'))).toBe(true);

    queries.length = 0;
    expect(
      await counted.report('agent-1', 'at-1', {
        status: 'busy',
        last_ping_at: clock.now().toISOString(),
        ip_address: '10.0.0.2',
      }),
    ).toBe(true);
    expect(queries).toHaveLength(2);
    expect(
      await store.db
        .selectFrom('agents')
        .select(['status', 'ip_address'])
        .where('id', '=', 'agent-1')
        .executeTakeFirst(),
    ).toEqual({ status: 'busy', ip_address: '10.0.0.2' });
    queries.length = 0;
    expect(
      await counted.report('agent-1', 'at-1', {
        status: 'busy',
        last_ping_at: clock.now().toISOString(),
        ip_address: '10.0.0.3',
      }),
    ).toBe(true);
    // Only the ping changes, of an agent this repository last wrote with that token and status:
    // kept in memory (pings.ts), and written by the next flush (or read of agents).
    expect(queries).toEqual([]);
    expect(
      (await store.db.selectFrom('agents').select('ip_address').where('id', '=', 'agent-1').executeTakeFirst())
        ?.ip_address,
    ).toBe('10.0.0.2');
    await counted.flushPings();
    expect(queries).toEqual([
      'begin',
      expect.stringMatching(
        /^with "v" ?\("id", "token_id", "status", "at", "ip"\) as \(values \(\?, \?, \?, \?, \?\)\) update "agents" set "last_ping_at" = "v"."at", "ip_address" = "v"."ip" from "v" where/,
      ),
      'commit',
    ]);
    expect(
      await store.db
        .selectFrom('agents')
        .select(['status', 'ip_address'])
        .where('id', '=', 'agent-1')
        .executeTakeFirst(),
    ).toEqual({ status: 'busy', ip_address: '10.0.0.3' });
    expect(
      await counted.report('agent-0', 'at-1', {
        status: 'idle',
        last_ping_at: clock.now().toISOString(),
        ip_address: '10.0.0.2',
      }),
    ).toBe(false);
    expect(
      await counted.report('agent-3', 'at-other', {
        status: 'idle',
        last_ping_at: clock.now().toISOString(),
        ip_address: '10.0.0.2',
      }),
    ).toBe(false);
    await logged.destroy().catch(() => undefined);
  });
});
