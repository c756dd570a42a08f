/**
 * Property tests: random hostile values in every field of the create and update bodies (wrong
 * types, huge numbers, `../`, `__proto__` keys, unicode, nested junk) never crash the daemon and,
 * when refused, change nothing in the database.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import { sql } from 'kysely';
import { DIALECT_ONLY } from '../../daemon/src/store/migrations';
import type { HttpClient } from '../helpers/http';
import { createBox } from '../helpers/registry';
import { createOrg, createWorkspace, JSONAPI } from '../helpers/agents';

let d: TestDaemon;
let api: HttpClient;
let jsonapi: HttpClient;
let workspaceId: string;

beforeAll(async () => {
  d = await startTestDaemon();
  const alice = await d.user('fuzzer');
  api = alice.http;
  jsonapi = alice.http.withContentType(JSONAPI);
  await createBox(api, 'fuzzer', 'target');
  expect((await api.post('/api/v1/box/fuzzer/target/versions', { version: { version: '1.0.0' } })).status).toBe(200);
  await createOrg(jsonapi, 'fuzzorg');
  workspaceId = (await createWorkspace(jsonapi, 'fuzzorg', 'ws1')).id;
});
afterAll(() => d.stop());

/**
 * Every row of every table but tokens (their last-used time moves on any request), on either
 * database. Search's own index (DIALECT_ONLY: FTS5's tables on SQLite) is left out: it follows boxes.
 */
async function dbSnapshot(): Promise<string> {
  const db = d.deps.db;
  const only = DIALECT_ONLY[d.deps.store.dialect].tables;
  const tables = (await db.introspection.getTables())
    .map((t) => t.name)
    .filter((n) => !only.test(n) && !['api_tokens', 'agent_tokens', 'rate_limits'].includes(n))
    .sort();
  const rows = [];
  for (const t of tables) {
    const all = await sql<Record<string, unknown>>`select * from ${sql.table(t)}`.execute(db);
    rows.push([t, all.rows.map((r) => JSON.stringify(r)).sort()]);
  }
  return JSON.stringify(rows);
}

const hostileString = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '../',
    '../../etc/passwd',
    '%2e%2e%2f',
    '__proto__',
    'constructor',
    'a/b',
    'api',
    'ü̈n̈ï',
    '😀',
    '\u0000',
    'x'.repeat(10_000),
    '1.0.0',
    'v1',
    '-1',
  ),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
);
const hostileValue = fc.oneof(
  hostileString,
  fc.constantFrom(null, true, false, 0, -1, 1e308, -1e308, 2 ** 63, Number.MAX_SAFE_INTEGER + 2, 0.5),
  fc.jsonValue({ maxDepth: 2 }),
  fc.constant({ __proto__: { admin: true } }),
);
/** A body of the given fields, each one left out, or a hostile value. */
const hostileFields = (fields: string[]) =>
  fc.record(Object.fromEntries(fields.map((f) => [f, hostileValue])), { requiredKeys: [] });

/** Sends each sample; asserts a clean answer, and an unchanged database when refused. */
async function fuzz<T>(
  arb: fc.Arbitrary<T>,
  send: (v: T) => Promise<{ status: number; text: string }>,
  accepted: number[],
) {
  await fc.assert(
    fc.asyncProperty(arb, async (value) => {
      const before = await dbSnapshot();
      const r = await send(value);
      expect(r.status, r.text).toBeLessThan(500);
      if (!accepted.includes(r.status)) {
        expect(r.status, r.text).toBeGreaterThanOrEqual(400);
        expect(r.text.length, 'an error says what was wrong').toBeGreaterThan(10);
        expect(await dbSnapshot()).toBe(before);
      }
    }),
    { numRuns: 80 },
  );
}

describe('hostile bodies', () => {
  it('box create', () =>
    fuzz(
      hostileFields(['name', 'short_description', 'description', 'is_private']),
      (box) => api.post('/api/v1/boxes', { box: { username: 'fuzzer', ...box } }),
      [200],
    ));

  it('box update', () =>
    fuzz(
      hostileFields(['name', 'short_description', 'description', 'is_private']),
      (box) => api.put('/api/v1/box/fuzzer/target', { box }),
      [200],
    ));

  it('version create', () =>
    fuzz(
      hostileFields(['version', 'description']),
      (version) => api.post('/api/v1/box/fuzzer/target/versions', { version }),
      [200],
    ));

  it('provider create (v2)', () =>
    fuzz(
      hostileFields(['name', 'url', 'checksum', 'checksum_type', 'architecture', 'default_architecture']),
      (provider) => api.post('/api/v2/box/fuzzer/target/version/1.0.0/providers', { provider }),
      [200],
    ));

  it('whole bodies of any JSON shape', () =>
    fuzz(
      fc.jsonValue({ maxDepth: 3 }),
      (body) => api.post('/api/v1/boxes', JSON.stringify(body), { raw: true }),
      [200],
    ));

  it('agent pool create', () =>
    fuzz(
      fc.tuple(hostileFields(['name', 'organization-scoped']), hostileValue),
      ([attributes, allowed]) =>
        jsonapi.post('/api/v2/organizations/fuzzorg/agent-pools', {
          data: { type: 'agent-pools', attributes, relationships: { 'allowed-workspaces': { data: allowed } } },
        }),
      [201],
    ));

  it('workspace update', () =>
    fuzz(
      hostileFields(['name', 'execution-mode', 'agent-pool-id', 'description']),
      (attributes) => jsonapi.patch(`/api/v2/workspaces/${workspaceId}`, { data: { type: 'workspaces', attributes } }),
      [200],
    ));
});

// NUL (\u0000): PostgreSQL cannot store it in text, SQLite can. Refused on both alike, in every
// place a request carries text, with the field named and nothing changed (the fuzz found a 500).
describe('the NUL character', () => {
  it('is refused in a body, a query parameter and a path, changing nothing', async () => {
    const before = await dbSnapshot();
    const body = await api.put('/api/v1/box/fuzzer/target', { box: { description: 'a\u0000b' } });
    // The box API's invalid input: 403 in Vagrant Cloud's table.
    expect(body.status, body.text).toBe(403);
    expect(body.json).toMatchObject({
      code: 'validation',
      errors: [expect.stringMatching(/box\.description: text may not hold the NUL character/)],
    });
    const key = await api.put('/api/v1/box/fuzzer/target', { box: { 'de\u0000sc': 'x' } });
    expect(key.status, key.text).toBe(403);
    const pool = await jsonapi.post('/api/v2/organizations/fuzzorg/agent-pools', {
      data: { type: 'agent-pools', attributes: { name: '\u0000' } },
    });
    expect(pool.status, pool.text).toBe(422);
    expect(pool.json.errors[0]).toMatchObject({ status: '422', detail: expect.stringMatching(/NUL character/) });
    const query = await api.get('/api/v1/search?q=a%00b');
    expect(query.status, query.text).toBe(403);
    expect(query.json).toMatchObject({ code: 'bad_parameter' });
    const path = await api.get('/api/v1/box/fuzzer/tar%00get');
    expect(path.status, path.text).toBe(403);
    expect(path.json).toMatchObject({
      code: 'validation',
      errors: [expect.stringMatching(/Invalid path: name: text may not hold the NUL/)],
    });
    expect(await dbSnapshot()).toBe(before);
  });
});

describe('a body nested very deep', () => {
  it('is answered without a crash (the NUL check walks it without recursion)', async () => {
    const deep = `{"box":${'['.repeat(200_000)}"a\\u0000"${']'.repeat(200_000)}}`;
    const r = await api.put('/api/v1/box/fuzzer/target', deep, { raw: true });
    expect(r.status, r.text).toBeLessThan(500);
    expect(r.status).toBeGreaterThanOrEqual(400);
  });
});
