import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type SqliteStore } from '../store/db';
import { AgentsRepository } from './repository';
import { AgentTokensRepository } from '../pools/tokens-repository';
import { PingBuffer, type Ping } from './pings';

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
/** Earlier than any ping: nothing turns errored. */
const LONG_AGO = '1970-01-01T00:00:00.000Z';
const ping = (id: string, s: number, status: Ping['status'] = 'idle'): Ping => ({
  id,
  tokenId: 'at-1',
  status,
  at: at(s),
  ip: '10.0.0.1',
});

describe('PingBuffer', () => {
  it('keeps pings only of agents written with that token and status, and writes them together after the delay', async () => {
    const batches: Ping[][] = [];
    const buffer = new PingBuffer(
      async (b) => {
        batches.push(b);
        return new Set();
      },
      (err) => {
        throw err;
      },
      20,
    );
    expect(buffer.take(ping('a', 1))).toBe(false);
    buffer.resetTo('a', { tokenId: 'at-1', status: 'idle' });
    buffer.resetTo('b', { tokenId: 'at-1', status: 'idle' });
    expect(buffer.take(ping('a', 2))).toBe(true);
    expect(buffer.take({ ...ping('a', 3), tokenId: 'at-2' })).toBe(false);
    expect(buffer.take(ping('a', 3, 'busy'))).toBe(false);
    expect(buffer.take(ping('b', 3))).toBe(true);
    expect(buffer.take(ping('a', 4))).toBe(true);
    expect(batches).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 60));
    // One batch, the latest ping of each agent.
    expect(batches).toEqual([[ping('a', 4), ping('b', 3)]]);
  });

  it('forgets agents a batch found no row for, or that it could not write, and says why', async () => {
    const errors: unknown[] = [];
    let fail = false;
    const buffer = new PingBuffer(
      async (b) => {
        if (fail) throw new Error('disk full');
        return new Set(b.filter((p) => p.id === 'gone').map((p) => p.id));
      },
      (err) => errors.push(err),
    );
    for (const id of ['gone', 'here']) buffer.resetTo(id, { tokenId: 'at-1', status: 'idle' });
    buffer.take(ping('gone', 1));
    buffer.take(ping('here', 1));
    await buffer.flush();
    expect(buffer.take(ping('gone', 2))).toBe(false);
    expect(buffer.take(ping('here', 2))).toBe(true);
    fail = true;
    await buffer.flush();
    expect(errors).toEqual([new Error('disk full')]);
    expect(buffer.take(ping('here', 3))).toBe(false);
  });

  it('drops a kept ping when the agent is written meanwhile, and writes nothing when nothing is kept', async () => {
    const batches: Ping[][] = [];
    const buffer = new PingBuffer(
      async (b) => {
        batches.push(b);
        return new Set();
      },
      (err) => {
        throw err;
      },
    );
    buffer.resetTo('a', { tokenId: 'at-1', status: 'idle' });
    buffer.take(ping('a', 1));
    buffer.resetTo('a', { tokenId: 'at-1', status: 'busy' });
    await buffer.flush();
    expect(batches).toEqual([]);
    expect(buffer.take(ping('a', 2, 'busy'))).toBe(true);
    buffer.forget('a');
    expect(buffer.take(ping('a', 3, 'busy'))).toBe(false);
  });

  it('keeps writing after a listener of its errors threw, and keeps nothing once closed', async () => {
    let fail = true;
    const batches: Ping[][] = [];
    const buffer = new PingBuffer(
      async (b) => {
        if (fail) throw new Error('disk full');
        batches.push(b);
        return new Set();
      },
      (err) => {
        throw err;
      },
    );
    buffer.resetTo('a', { tokenId: 'at-1', status: 'idle' });
    buffer.take(ping('a', 1));
    await expect(buffer.flush()).resolves.toBeUndefined();
    fail = false;
    buffer.resetTo('a', { tokenId: 'at-1', status: 'idle' });
    buffer.take(ping('a', 2));
    await buffer.close();
    expect(batches).toEqual([[ping('a', 2)]]);
    expect(buffer.take(ping('a', 3))).toBe(false);
  });
});

describe('AgentsRepository with kept pings', () => {
  let dir: string;
  let store: SqliteStore;
  let repo: AgentsRepository;
  const errors: unknown[] = [];
  const stored = (id: string) =>
    store.db
      .selectFrom('agents')
      .select(['status', 'last_ping_at', 'ip_address'])
      .where('id', '=', id)
      .executeTakeFirst();
  const report = (id: string, s: number, status: Ping['status'] = 'idle', tokenId = 'at-1') =>
    repo.report(id, tokenId, { status, last_ping_at: at(s), ip_address: `10.0.0.${s}` });

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'boxyard-pings-'));
    store = openStore(join(dir, 'db.sqlite'));
    repo = new AgentsRepository(store.db, store.versions, (err) => errors.push(err));
    await store.db
      .insertInto('organizations')
      .values({ id: 'org-1', name: 'o', name_key: 'o', email: null, created_at: at(0), updated_at: at(0) })
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
        created_at: at(0),
      })
      .execute();
    await new AgentTokensRepository(store.db, store.versions).insertToken({
      id: 'at-1',
      pool_id: 'apool-1',
      token_hash: 'h',
      created_by: null,
      created_at: at(0),
      last_used_at: null,
    });
    for (const id of ['agent-1', 'agent-2']) {
      await repo.insertAgent({
        id,
        pool_id: 'apool-1',
        token_id: 'at-1',
        name: null,
        status: 'idle',
        ip_address: '10.0.0.0',
        last_ping_at: at(0),
        created_at: at(0),
      });
    }
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
    errors.length = 0;
  });

  it('writes 301 kept pings in chunks, each only over its own agent, and a changed status as a report', async () => {
    const ids = Array.from({ length: 301 }, (_, i) => `many-${String(i).padStart(3, '0')}`);
    for (const id of ids)
      await repo.insertAgent({
        id,
        pool_id: 'apool-1',
        token_id: 'at-1',
        name: null,
        status: 'idle',
        ip_address: '10.0.0.0',
        last_ping_at: at(0),
        created_at: at(0),
      });
    for (const id of ids) expect(await report(id, 2)).toBe(true);
    await repo.flushPings();
    // The watchdog turned one unknown meanwhile (its kept ping becomes a report); another is newer already.
    await store.db.updateTable('agents').set({ status: 'unknown' }).where('id', '=', 'many-150').execute();
    await store.db
      .updateTable('agents')
      .set({ last_ping_at: at(9) })
      .where('id', '=', 'many-151')
      .execute();
    for (const id of ids) expect(await report(id, 5)).toBe(true);
    await repo.flushPings();
    const rows = await store.db
      .selectFrom('agents')
      .select(['id', 'status', 'last_ping_at', 'ip_address'])
      .where('id', 'like', 'many-%')
      .orderBy('id')
      .execute();
    expect(rows).toEqual(
      ids.map((id) => ({
        id,
        status: 'idle',
        last_ping_at: id === 'many-151' ? at(9) : at(5),
        ip_address: id === 'many-151' ? '10.0.0.2' : '10.0.0.5',
      })),
    );
    expect(errors).toEqual([]);
  });

  it('reads of agents see every ping taken before them', async () => {
    expect(await report('agent-1', 1)).toBe(true);
    expect(await report('agent-2', 2)).toBe(true);
    expect((await stored('agent-1'))?.last_ping_at).toBe(at(0));
    expect(await repo.agentById('agent-1')).toMatchObject({ last_ping_at: at(1), ip_address: '10.0.0.1' });
    expect(await report('agent-2', 3)).toBe(true);
    const page = await repo.listAgents('apool-1', { offset: 0, limit: 10 });
    expect(page.rows.map((a) => [a.id, a.last_ping_at])).toEqual([
      ['agent-1', at(1)],
      ['agent-2', at(3)],
    ]);
    expect(errors).toEqual([]);
  });

  it('an agent changed elsewhere (another daemon, the CLI) is told to stop one report later', async () => {
    expect(await report('agent-1', 1)).toBe(true);
    const other = new Database(join(dir, 'db.sqlite'));
    other.prepare("UPDATE agents SET status = 'errored' WHERE id = 'agent-1'").run();
    other.prepare("DELETE FROM agents WHERE id = 'agent-2'").run();
    other.close();
    // Kept: this daemon last wrote them idle.
    expect(await report('agent-1', 2)).toBe(true);
    expect(await report('agent-2', 2)).toBe(true);
    await repo.flushPings();
    // The kept pings found no row to update: the next reports are written at once, and refused.
    expect(await report('agent-1', 3)).toBe(false);
    expect(await report('agent-2', 3)).toBe(false);
    expect(await stored('agent-1')).toEqual({ status: 'errored', last_ping_at: at(0), ip_address: '10.0.0.0' });
    expect(await stored('agent-2')).toBeUndefined();
  });

  it('a ping kept by one daemon for an agent another turned unknown makes it live again, and never goes back in time', async () => {
    const other = new AgentsRepository(store.db, store.versions, (err) => errors.push(err));
    expect(await report('agent-1', 1)).toBe(true);
    // The other daemon (the leader) turns it unknown; this one still knows it idle and keeps its ping.
    expect(await other.markSilent(at(5), LONG_AGO)).toEqual({ unknown: 2, errored: 0 });
    expect(await report('agent-1', 6)).toBe(true);
    await repo.flushPings();
    expect(await stored('agent-1')).toEqual({ status: 'idle', last_ping_at: at(6), ip_address: '10.0.0.6' });
    // A newer ping written by the other daemon stays: this one's older kept ping is a miss.
    expect(await other.report('agent-1', 'at-1', { status: 'idle', last_ping_at: at(9), ip_address: '10.0.0.9' })).toBe(
      true,
    );
    expect(await report('agent-1', 8)).toBe(true);
    await repo.flushPings();
    expect(await stored('agent-1')).toEqual({ status: 'idle', last_ping_at: at(9), ip_address: '10.0.0.9' });
    expect(errors).toEqual([]);
  });

  it('writes at once what changes the status, and what the watchdog or a delete changed', async () => {
    expect(await report('agent-1', 1)).toBe(true);
    expect(await report('agent-1', 2, 'busy')).toBe(true);
    expect(await stored('agent-1')).toEqual({ status: 'busy', last_ping_at: at(2), ip_address: '10.0.0.2' });
    expect(await report('agent-1', 3, 'exited')).toBe(true);
    expect(await stored('agent-1')).toMatchObject({ status: 'exited' });
    expect(await report('agent-1', 4, 'idle')).toBe(false);
    expect(await report('agent-2', 1)).toBe(true);
    expect(await repo.markSilent(at(5), LONG_AGO)).toEqual({ unknown: 1, errored: 0 });
    expect(await stored('agent-2')).toMatchObject({ status: 'unknown', last_ping_at: at(1) });
    // The watchdog turned it unknown: its next report is written at once, and makes it idle again.
    expect(await report('agent-2', 6)).toBe(true);
    expect(await stored('agent-2')).toMatchObject({ status: 'idle', last_ping_at: at(6) });
    await repo.deleteAgent('agent-2');
    expect(await report('agent-2', 7)).toBe(false);
  });
});
