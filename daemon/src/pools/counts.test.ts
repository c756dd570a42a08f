import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type SqliteStore } from '../store/db';

let dir: string;
let store: SqliteStore;
const now = '2026-01-01T00:00:00.000Z';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'boxyard-pool-counts-'));
  store = openStore(join(dir, 'db.sqlite'));
  await store.db
    .insertInto('organizations')
    .values({ id: 'org-1', name: 'o', name_key: 'o', email: null, created_at: now, updated_at: now })
    .execute();
  for (const [id, seq] of [
    ['apool-1', 1],
    ['apool-2', 2],
  ] as const) {
    await store.db
      .insertInto('agent_pools')
      .values({ id, organization_id: 'org-1', name: id, name_key: id, organization_scoped: 1, seq, created_at: now })
      .execute();
  }
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The kept counts next to what counting the agents gives. */
async function counts() {
  const kept = await store.db
    .selectFrom('agent_pools')
    .select(['id', 'agent_count', 'agent_total'])
    .orderBy('id')
    .execute();
  const counted = await Promise.all(
    kept.map(async (p) => {
      const all = await store.db.selectFrom('agents').select(['status']).where('pool_id', '=', p.id).execute();
      return {
        id: p.id,
        agent_count: all.filter((a) => ['idle', 'busy', 'unknown'].includes(a.status)).length,
        agent_total: all.length,
      };
    }),
  );
  return { kept, counted };
}

describe('agent counts kept by triggers (migration 008)', () => {
  it('follow registrations, status changes, moves between pools and deletions', async () => {
    let seq = 0;
    const add = (id: string, pool: string, status: 'idle' | 'busy' | 'unknown' | 'errored' | 'exited') =>
      store.db
        .insertInto('agents')
        .values({
          id,
          pool_id: pool,
          token_id: null,
          name: null,
          status,
          ip_address: '127.0.0.1',
          last_ping_at: now,
          created_at: now,
          seq: ++seq,
        })
        .execute();
    await add('a1', 'apool-1', 'idle');
    await add('a2', 'apool-1', 'busy');
    await add('a3', 'apool-1', 'exited');
    await add('a4', 'apool-2', 'unknown');
    expect((await counts()).kept).toEqual([
      { id: 'apool-1', agent_count: 2, agent_total: 3 },
      { id: 'apool-2', agent_count: 1, agent_total: 1 },
    ]);
    // A report that keeps the agent live, one that ends it, one that changes only the ping time.
    await store.db.updateTable('agents').set({ status: 'busy' }).where('id', '=', 'a1').execute();
    await store.db.updateTable('agents').set({ status: 'errored' }).where('id', '=', 'a2').execute();
    await store.db.updateTable('agents').set({ last_ping_at: '2026-01-02T00:00:00.000Z' }).execute();
    await store.db.updateTable('agents').set({ pool_id: 'apool-2' }).where('id', '=', 'a1').execute();
    await store.db.deleteFrom('agents').where('id', '=', 'a3').execute();
    const c = await counts();
    expect(c.kept).toEqual(c.counted);
    expect(c.kept).toEqual([
      { id: 'apool-1', agent_count: 0, agent_total: 1 },
      { id: 'apool-2', agent_count: 2, agent_total: 2 },
    ]);
  });
});
