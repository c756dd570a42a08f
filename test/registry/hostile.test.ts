import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient } from '../helpers/http';
import { createBox, publish, snapshot } from '../helpers/registry';

let d: TestDaemon;
let alice: { token: string; http: HttpClient };
const BOX = '/api/v1/box/alice/target';

beforeAll(async () => {
  d = await startTestDaemon();
  alice = await d.user('alice');
  await createBox(alice.http, 'alice', 'target');
  await publish(alice.http, 'alice', 'target', '1.0.0', { release: false });
});
afterAll(() => d.stop());

/** Sends a request and checks the status, the Vagrant error body, and that no registry row changed. */
async function refused(
  send: () => Promise<{ status: number; json: { errors?: string[]; success?: boolean } }>,
  status: number,
  message?: RegExp,
) {
  const before = await snapshot(d);
  const r = await send();
  expect(r.status).toBe(status);
  expect(r.json.success).toBe(false);
  expect(r.json.errors?.[0]).toEqual(expect.any(String));
  if (message) expect(r.json.errors?.[0]).toMatch(message);
  expect(await snapshot(d)).toEqual(before);
}

describe('wrong types', () => {
  it.each([
    [{ box: { username: 'alice', name: 'x', is_private: 'yes' } }, /is_private: must be true or false/],
    [{ box: { username: 'alice', name: 123 } }, /name must be a string/],
    [{ box: { username: ['alice'], name: 'x' } }, /username/],
    [{ box: { username: 'alice', name: 'x', short_description: { a: 1 } } }, /short_description/],
    [{ box: { username: 'alice', name: 'x', is_private: 1e308 } }, /is_private/],
  ])('POST /boxes %j → 403', async (body, message) => {
    await refused(() => alice.http.post('/api/v1/boxes', body), 403, message);
  });

  it('a numeric version and a list as provider name → 403', async () => {
    await refused(
      () => alice.http.post(`${BOX}/versions`, { version: { version: 1.1 } }),
      403,
      /version must be a string/,
    );
    await refused(() => alice.http.post(`${BOX}/version/1.0.0/providers`, { provider: { name: ['virtualbox'] } }), 403);
    await refused(
      () => alice.http.put(`${BOX}/version/1.0.0/provider/virtualbox`, { provider: { default_architecture: 'true' } }),
      403,
    );
  });
});

describe('path tricks', () => {
  it('refuses "../" and slashes in names', async () => {
    await refused(
      () => alice.http.post('/api/v1/boxes', { box: { username: 'alice', name: '../etc' } }),
      403,
      /may contain only/,
    );
    await refused(() => alice.http.post('/api/v1/boxes', { box: { username: 'alice', name: 'a/b' } }), 403);
    await refused(() => alice.http.post('/api/v1/boxes', { box: { username: '../alice', name: 'x' } }), 404);
    await refused(
      () => alice.http.post(`${BOX}/version/1.0.0/providers`, { provider: { name: '../../virtualbox' } }),
      403,
    );
    await refused(() => alice.http.post(`${BOX}/versions`, { version: { version: '1.0/../2' } }), 403);
  });

  it('answers encoded traversal in paths with 404', async () => {
    await refused(() => alice.http.get('/api/v1/box/alice/..%2F..%2Fetc%2Fpasswd'), 404);
    await refused(() => alice.http.delete('/api/v1/box/alice/%2e%2e'), 404);
    await refused(() => alice.http.get('/alice/..%2Ftarget'), 404);
    await refused(() => alice.http.get(`${BOX}/version/1.0.0/provider/virtualbox/..%2Famd64`), 404);
  });

  it('answers a malformed percent-encoding with a 4xx, not a crash', async () => {
    const r = await alice.http.get('/api/v1/box/alice/%E0%A4%A');
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(r.status).toBeLessThan(500);
  });
});

describe('__proto__ and friends', () => {
  it('ignores __proto__ inside the box and creates nothing from a top-level one', async () => {
    const text = '{"box":{"__proto__":{"is_private":false},"username":"alice","name":"proto"}}';
    const r = await alice.http.post('/api/v1/boxes', text, { raw: true });
    expect(r.status).toBe(200);
    expect(r.json.private).toBe(true);
    expect(({} as Record<string, unknown>).is_private).toBeUndefined();
    await refused(
      () => alice.http.post('/api/v1/boxes', '{"__proto__":{"username":"alice","name":"evil"}}', { raw: true }),
      403,
    );
    await refused(
      () => alice.http.post('/api/v1/boxes', '{"box":{"constructor":{"prototype":{"name":"evil"}}}}', { raw: true }),
      403,
    );
    expect(({} as Record<string, unknown>).name).toBeUndefined();
    expect((await alice.http.get('/api/v1/box/alice/evil')).status).toBe(404);
  });
});

describe('empty and truncated bodies', () => {
  it.each([
    ['an empty body', '', 403, /name/],
    ['whitespace', '   ', 403, /name/],
    ['truncated JSON', '{"box":{"username":"alice","name":"trunc"', 400, /not valid JSON/],
    ['an array', '[{"name":"x"}]', 400, /JSON object/],
    ['null', 'null', 400, /JSON object/],
    ['a string', '"box"', 400, /JSON object/],
  ])('POST /boxes with %s → %i', async (_what, body, status, message) => {
    await refused(() => alice.http.post('/api/v1/boxes', body, { raw: true }), status, message);
  });

  it('PUT /box with an empty body changes nothing but the update time', async () => {
    const r = await alice.http.put(BOX, '', { raw: true });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ tag: 'alice/target', private: false });
  });
});

describe('huge numbers and long strings', () => {
  it('refuses over-long fields', async () => {
    await refused(
      () => alice.http.post('/api/v1/boxes', { box: { username: 'alice', name: 'n'.repeat(65) } }),
      403,
      /at most 64/,
    );
    await refused(
      () =>
        alice.http.post('/api/v1/boxes', {
          box: { username: 'alice', name: 'long', short_description: 'x'.repeat(1025) },
        }),
      403,
    );
    await refused(() => alice.http.post(`${BOX}/versions`, { version: { version: `1.${'0'.repeat(70)}` } }), 403);
    await refused(() => alice.http.get(`/api/v1/box/alice/${'x'.repeat(300)}`), 403);
  });

  it('accepts huge version numbers that are still Ruby Gem versions', async () => {
    const r = await alice.http.post(`${BOX}/versions`, { version: { version: '99999999999999999999999.0' } });
    expect(r.status).toBe(200);
    expect(r.json.version).toBe('99999999999999999999999.0');
  });

  it('refuses huge search numbers', async () => {
    await refused(() => d.http.get('/api/v1/search?limit=99999999999999999999'), 403);
    await refused(() => d.http.get('/api/v1/search?page=-1'), 403);
  });
});

describe('unicode', () => {
  it('refuses non-ASCII and invisible characters in names', async () => {
    await refused(() => alice.http.post('/api/v1/boxes', { box: { username: 'alice', name: 'büx' } }), 403);
    await refused(() => alice.http.post('/api/v1/boxes', { box: { username: 'alice', name: 'box\u200b' } }), 403);
    await refused(() => alice.http.post('/api/v1/boxes', { box: { username: 'alice', name: 'box\u0000' } }), 403);
    await refused(() => alice.http.get('/api/v1/box/alice/%F0%9F%93%A6'), 404);
  });

  it('keeps unicode descriptions exactly and escapes them in HTML', async () => {
    const text = 'Übung 📦 مرحبا <script>alert(1)</script>';
    const r = await alice.http.put(BOX, { box: { description: text } });
    expect(r.status).toBe(200);
    expect(r.json.description_markdown).toBe(text);
    expect(r.json.description_html).not.toContain('<script>');
    expect((await d.http.get(BOX)).json.description).toBe(text);
  });
});
