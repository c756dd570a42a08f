import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OverviewAnswer, type OverviewJson } from '../../daemon/src/contract/wire/overview';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient } from '../helpers/http';
import { conforms } from '../helpers/contract';
import { mirrorOnce, publishHosted } from '../helpers/mirror';
import { createAgentToken, createOrg, createPool, JSONAPI } from '../helpers/agents';

// `GET /api/boxyard/overview`, the web UI's first page for a signed-in user: storage,
// counts, the URL for colleagues, version, health and recent activity, each limited to what the
// caller may see.

const PACKAGE_VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
const webFile = Buffer.alloc(40_000, 1);
const secretFile = Buffer.alloc(25_000, 2);

let d: TestDaemon;
let admin: HttpClient;
let alice: HttpClient;
let bob: HttpClient;

const overview = async (http: HttpClient): Promise<OverviewJson> =>
  conforms(OverviewAnswer, await http.get('/api/boxyard/overview')).overview;
const targets = (o: OverviewJson, kind: string) => o.activity.filter((a) => a.kind === kind).map((a) => a.target);

beforeAll(async () => {
  d = await startTestDaemon();
  admin = d.http.withToken(d.adminToken);
  alice = (await d.user('alice')).http;
  bob = (await d.user('bob')).http;
  await publishHosted(admin, 'admin', 'web', '1.0.0', webFile);
  await publishHosted(alice, 'alice', 'secret', '1.0.0', secretFile, { private: true });
  // A mirror of admin/web from this same daemon into lab/web: its version is released, its file is the same blob.
  const { job } = await mirrorOnce(admin, { upstream: { url: d.url }, source: 'admin/web', target: 'lab/web' });
  expect(job.state, job.message ?? '').toBe('done');
});
afterAll(async () => {
  await d?.stop();
});

describe('GET /api/boxyard/overview', () => {
  it('asks for sign-in', async () => {
    const r = await d.http.get('/api/boxyard/overview');
    expect(r.status).toBe(401);
    expect(r.json).toMatchObject({ code: 'unauthorized' });
  });

  it('an administrator: everything counted, stored bytes once per file, the disk, version and health', async () => {
    const o = await overview(admin);
    expect(o.counts).toEqual({ boxes: 3, versions: 3, files: 2 });
    expect(o.storage.files_bytes).toBe(webFile.length + secretFile.length);
    expect(o.storage.disk_total_bytes).toBeGreaterThanOrEqual(o.storage.disk_free_bytes);
    expect(o.storage.disk_free_bytes).toBeGreaterThan(0);
    expect(o.storage.reserve_bytes).toBe(512 * 1024 * 1024);
    expect(o.version).toBe(PACKAGE_VERSION);
    expect(o.health.status).toBe((await d.http.get('/healthz')).json.status);
    // The test daemon listens on 127.0.0.1: no one else reaches it.
    expect(o.lan_urls).toEqual([]);
  });

  it('recent activity: uploads people made, releases, mirror jobs, newest first', async () => {
    const o = await overview(admin);
    expect(targets(o, 'upload').sort()).toEqual(['admin/web', 'alice/secret']);
    expect(targets(o, 'release').sort()).toEqual(['admin/web', 'alice/secret', 'lab/web']);
    expect(o.activity.filter((a) => a.kind === 'mirror_job')).toEqual([
      expect.objectContaining({ target: 'lab/web', source: 'admin/web', state: 'done' }),
    ]);
    expect(o.activity.find((a) => a.kind === 'upload' && a.target === 'admin/web')).toMatchObject({
      version: '1.0.0',
      provider: 'virtualbox',
      architecture: 'amd64',
      size: webFile.length,
    });
    const times = o.activity.map((a) => a.at);
    expect(times).toEqual([...times].sort().reverse());
  });

  it("anyone else: what they may see, nothing of others' private boxes or mirrors", async () => {
    const b = await overview(bob);
    expect(b.counts).toEqual({ boxes: 2, versions: 2, files: 1 });
    expect(b.activity.map((a) => a.target)).not.toContain('alice/secret');
    expect(targets(b, 'mirror_job')).toEqual([]);
    const a = await overview(alice);
    expect(a.counts).toEqual({ boxes: 3, versions: 3, files: 2 });
    expect(targets(a, 'upload')).toContain('alice/secret');
    // The disk is the daemon's, whoever asks.
    expect(a.storage.files_bytes).toBe(webFile.length + secretFile.length);
  });
});

describe('organizations, pools and agents; what the getting-started checklist reads', () => {
  /** A pool of `org` with an agent that registered and then reported each of `statuses`. */
  const poolWithAgents = async (owner: HttpClient, org: string, statuses: string[]) => {
    const pool = await createPool(owner.withContentType(JSONAPI), org, `${org}-pool`);
    const agent = d.http.withToken((await createAgentToken(owner.withContentType(JSONAPI), pool.id)).token);
    for (const status of statuses) {
      const id = (await agent.post('/api/agent/register', { name: `${org}-${status}` })).json.agent.id as string;
      if (status !== 'idle') expect((await agent.post(`/api/agent/agents/${id}/status`, { status })).status).toBe(200);
    }
  };
  const none = { idle: 0, busy: 0, unknown: 0, errored: 0, exited: 0 };

  beforeAll(async () => {
    await createOrg(alice.withContentType(JSONAPI), 'acme');
    await poolWithAgents(alice, 'acme', ['idle', 'busy', 'busy']);
    await createOrg(bob.withContentType(JSONAPI), 'bobs');
    await poolWithAgents(bob, 'bobs', ['exited']);
  });

  it('an administrator counts every organization, pool and agent, and the users', async () => {
    const o = await overview(admin);
    // lab is the organization the mirror made.
    expect(o.organizations).toEqual({ count: 3, pools: 2, agents: { ...none, idle: 1, busy: 2, exited: 1 } });
    expect(o.getting_started).toEqual({ boxes: 3, uploads: 2, releases: 3, users: 3 });
  });

  it("anyone else counts only their own organizations' pools and agents, and no users", async () => {
    const a = await overview(alice);
    expect(a.organizations).toEqual({ count: 1, pools: 1, agents: { ...none, idle: 1, busy: 2 } });
    // Only what alice manages: her private box, not admin's public one.
    expect(a.getting_started).toEqual({ boxes: 1, uploads: 1, releases: 1, users: null });
    const b = await overview(bob);
    expect(b.organizations).toEqual({ count: 1, pools: 1, agents: { ...none, exited: 1 } });
    expect(b.getting_started).toEqual({ boxes: 0, uploads: 0, releases: 0, users: null });
    const carol = (await d.user('carol')).http;
    const c = await overview(carol);
    expect(c.organizations).toEqual({ count: 0, pools: 0, agents: none });
    expect(c.getting_started).toEqual({ boxes: 0, uploads: 0, releases: 0, users: null });
    // Carol is a fourth user now.
    expect((await overview(admin)).getting_started.users).toBe(4);
  });
});

describe('the URL for colleagues', () => {
  it('is the public URL when one is set', async () => {
    const p = await startTestDaemon({ config: { publicUrl: 'http://boxes.lab.example:4780' } });
    try {
      expect((await overview(p.http.withToken(p.adminToken))).lan_urls).toEqual(['http://boxes.lab.example:4780']);
    } finally {
      await p.stop();
    }
  });
});
