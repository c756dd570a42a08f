import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../daemon/src/lib/clock';
import { sha256Hex } from '../../daemon/src/lib/crypto';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient } from '../helpers/http';
import { JSONAPI, createOrg, createPool, doc } from '../helpers/agents';

let d: TestDaemon;
let alice: HttpClient;
let bob: HttpClient;
let pool: { id: string };
const clock = new ManualClock();

beforeAll(async () => {
  d = await startTestDaemon({ clock });
  alice = (await d.user('alice')).http.withContentType(JSONAPI);
  bob = (await d.user('bob')).http.withContentType(JSONAPI);
  await createOrg(alice, 'acme');
  pool = await createPool(alice, 'acme', 'pool');
});
afterAll(() => d.stop());

const tokenRows = () => d.deps.db.selectFrom('agent_tokens').selectAll().execute();

describe('agent tokens', () => {
  let created: { id: string; attributes: Record<string, unknown> };

  it('creates a token: the secret is in the 201 only, stored as a SHA-256 hash, created-by the caller', async () => {
    const r = await alice.post(
      `/api/v2/agent-pools/${pool.id}/authentication-tokens`,
      doc('authentication-tokens', { description: 'rack 1' }),
    );
    expect(r.status).toBe(201);
    created = r.json.data;
    const alicesId = (await d.deps.accounts.userNamed('alice')).id;
    expect(created).toMatchObject({
      type: 'authentication-tokens',
      attributes: { description: 'rack 1', 'created-at': clock.now().toISOString(), 'last-used-at': null },
      relationships: {
        'created-by': { data: { type: 'users', id: alicesId } },
        'agent-pool': { data: { type: 'agent-pools', id: pool.id } },
      },
    });
    expect(created.id).toMatch(/^at-/);
    const secret = created.attributes.token as string;
    expect(secret.length).toBeGreaterThanOrEqual(40);
    const rows = await tokenRows();
    expect(rows).toHaveLength(1);
    expect(rows[0].token_hash).toBe(sha256Hex(secret));
    expect(JSON.stringify(rows)).not.toContain(secret);
    const shown = await alice.get(`/api/v2/authentication-tokens/${created.id}`);
    expect(shown.status).toBe(200);
    expect(shown.json.data.attributes.token).toBeUndefined();
    const listed = await alice.get(`/api/v2/agent-pools/${pool.id}/authentication-tokens`);
    expect(listed.json.data.map((t: { id: string }) => t.id)).toEqual([created.id]);
    expect(listed.json.data[0].attributes.token).toBeUndefined();
    expect(listed.json.meta.pagination['total-count']).toBe(1);
  });

  it('accepts data.type agent-tokens too and refuses other types with 422', async () => {
    const r = await alice.post(
      `/api/v2/agent-pools/${pool.id}/authentication-tokens`,
      doc('agent-tokens', { description: 'alt' }),
    );
    expect(r.status).toBe(201);
    const bad = await alice.post(
      `/api/v2/agent-pools/${pool.id}/authentication-tokens`,
      doc('agent-pools', { description: 'x' }),
    );
    expect(bad.status).toBe(422);
    expect(await tokenRows()).toHaveLength(2);
  });

  it('records last-used-at when an agent uses the token', async () => {
    clock.advance(5000);
    const reg = await d.http.withToken(created.attributes.token as string).post('/api/agent/register', { name: 'a1' });
    expect(reg.status).toBe(201);
    const shown = await alice.get(`/api/v2/authentication-tokens/${created.id}`);
    expect(shown.json.data.attributes['last-used-at']).toBe(clock.now().toISOString());
  });

  it('answers 404 to strangers and for unknown ids, and never lets them revoke', async () => {
    expect((await bob.get(`/api/v2/authentication-tokens/${created.id}`)).status).toBe(404);
    expect((await bob.get(`/api/v2/agent-pools/${pool.id}/authentication-tokens`)).status).toBe(404);
    expect(
      (await bob.post(`/api/v2/agent-pools/${pool.id}/authentication-tokens`, doc('authentication-tokens', {}))).status,
    ).toBe(404);
    expect((await bob.delete(`/api/v2/authentication-tokens/${created.id}`)).status).toBe(404);
    expect((await alice.get('/api/v2/authentication-tokens/nonexisting')).status).toBe(404);
    expect((await alice.get('/api/v2/agent-pools/nonexisting/authentication-tokens')).status).toBe(404);
    expect(await tokenRows()).toHaveLength(2);
  });

  it('revokes a token (204): its agents exit and its secret stops working', async () => {
    const secret = created.attributes.token as string;
    const agentId = (await d.deps.db.selectFrom('agents').select('id').executeTakeFirstOrThrow()).id;
    const r = await alice.delete(`/api/v2/authentication-tokens/${created.id}`, {
      headers: { 'content-type': JSONAPI },
    });
    expect(r.status).toBe(204);
    expect((await alice.get(`/api/v2/authentication-tokens/${created.id}`)).status).toBe(404);
    expect((await alice.get(`/api/v2/agents/${agentId}`)).json.data.attributes.status).toBe('exited');
    const late = await d.http.withToken(secret).post(`/api/agent/agents/${agentId}/status`, { status: 'idle' });
    expect(late.status).toBe(401);
    expect(late.json.action).toBe('stop');
    expect(await tokenRows()).toHaveLength(1);
  });
});
