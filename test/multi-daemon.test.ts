import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnDaemon, type SpawnedDaemon } from './helpers/spawn-daemon';
import { ensureDatabase, startTestPostgres, type TestPostgres } from './helpers/postgres';
import { ADMIN } from './helpers/daemon';
import { HttpClient } from './helpers/http';
import { createAgentToken, createOrg, createPool, JSONAPI } from './helpers/agents';

/**
 * Several daemons on one PostgreSQL database behind a load balancer (issue 13): one leads — runs
 * the agent watchdog, garbage collection and scheduled mirrors — and another takes over when it
 * dies. Each daemon has a data folder of its own holding the same secret.key, as deployments mount it.
 */
describe('two daemons on one PostgreSQL database', () => {
  let cluster: TestPostgres;
  const dirs: string[] = [];
  const daemons: SpawnedDaemon[] = [];
  let env: Record<string, string>;

  const start = async (keyFrom?: string) => {
    const dir = mkdtempSync(join(tmpdir(), 'boxyard-multi-'));
    dirs.push(dir);
    if (keyFrom) copyFileSync(join(keyFrom, 'secret.key'), join(dir, 'secret.key'));
    const d = await spawnDaemon({ dataDir: dir, env });
    daemons.push(d);
    return { d, dir };
  };

  const readyz = async (d: SpawnedDaemon) => {
    const r = await fetch(`${d.url}/readyz`);
    return { status: r.status, body: await r.json() as { status: string; leader: boolean } };
  };

  /** Asks until `check` holds, at most `tries` times a quarter second apart. */
  const eventually = async <T>(what: () => Promise<T>, check: (v: T) => boolean, tries = 120): Promise<T> => {
    let v = await what();
    for (let i = 0; i < tries && !check(v); i++) {
      await new Promise((r) => setTimeout(r, 250));
      v = await what();
    }
    return v;
  };

  beforeAll(async () => {
    cluster = await startTestPostgres();
    await ensureDatabase(cluster.url('postgres'), 'multi');
    // Agents report every 2 s, and are unknown after 3 s of silence: a takeover is seen in seconds.
    env = { BOXYARD_DATABASE_URL: cluster.url('multi'), BOXYARD_AGENT_PING: '2', BOXYARD_AGENT_UNKNOWN_AFTER: '3' };
  }, 120_000);

  afterAll(async () => {
    for (const d of daemons) await d.kill('SIGKILL');
    await cluster?.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('leads with exactly one daemon, and hands the lead over when that one is killed', async () => {
    const a = await start();
    const b = await start(a.dir);
    expect(await readyz(a.d)).toEqual({ status: 200, body: expect.objectContaining({ status: 'ready', leader: true }) });
    expect(await readyz(b.d)).toEqual({ status: 200, body: expect.objectContaining({ status: 'ready', leader: false }) });

    // An agent registered through A, reporting to nobody: only the leader's watchdog marks it unknown.
    const admin = new HttpClient(a.d.url);
    const login = await admin.post('/api/v1/authenticate', { user: { login: ADMIN.username, password: ADMIN.password } });
    expect(login.status).toBe(200);
    const api = admin.withToken((login.json as { token: string }).token).withContentType(JSONAPI);
    await createOrg(api, 'lab');
    const pool = await createPool(api, 'lab', 'pool');
    const token = await createAgentToken(api, pool.id);
    const reg = await new HttpClient(a.d.url).withToken(token.token).post('/api/agent/register', { name: 'silent' });
    expect(reg.status).toBe(201);

    await a.d.kill('SIGKILL');
    const took = await eventually(() => readyz(b.d), (r) => r.body.leader);
    expect(took.body.leader).toBe(true);

    // B's watchdog now turns the silent agent unknown; B answers everything A's token made.
    const viaB = new HttpClient(b.d.url).withToken((login.json as { token: string }).token).withContentType(JSONAPI);
    const agent = await eventually(() => viaB.get(`/api/v2/agents/${(reg.json as { agent: { id: string } }).agent.id}`),
      (r) => (r.json as { data?: { attributes: { status: string } } }).data?.attributes.status === 'unknown');
    expect(agent.status).toBe(200);
    expect((agent.json as { data: { attributes: { status: string } } }).data.attributes.status).toBe('unknown');
  });
});
