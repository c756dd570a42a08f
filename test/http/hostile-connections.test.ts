import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient } from '../helpers/http';
import { createBox } from '../helpers/registry';
import { hostedProvider, providerRow, stagedUploads } from '../helpers/blobs';
import { rawPut } from '../helpers/upload';
import { parseAnswer, rawConnect, rawGet, trickle, type RawConnection } from '../helpers/sockets';

// Slow clients (slowloris) and floods. Every client here connects over loopback; other
// addresses of 127.0.0.0/8 (127.0.0.2 …) stand for other machines on the LAN.
const FLOODER = '127.0.0.2';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Polls until `check` holds (the test's own timeout bounds it). */
async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await sleep(20);
}

describe('timeouts against slow clients', () => {
  let d: TestDaemon;
  let alice: { token: string; http: HttpClient };

  beforeAll(async () => {
    d = await startTestDaemon({ config: { headersTimeoutSeconds: 1, bodyIdleSeconds: 1, jsonBodySeconds: 1.5 } });
    alice = await d.user('alice', { orgs: ['acme'] });
    await createBox(alice.http, 'alice', 'slow');
  });
  afterAll(() => d.stop());

  it('answers 408 and closes a connection whose headers do not arrive in time', async () => {
    const silent = await rawConnect(d.url);
    const trickling = await rawConnect(d.url);
    trickling.socket.write(`GET /healthz HTTP/1.1\r\nHost: ${new URL(d.url).host}\r\n`);
    void trickle(trickling.socket, 'X-Slow: a\r\n'.repeat(100), 200);
    for (const c of [silent, trickling]) expect(parseAnswer(await c.closed).status).toBe(408);
  });

  it('answers a JSON body trickled a byte at a time with 408 in the box dialect, and creates nothing', async () => {
    const body = JSON.stringify({ box: { username: 'alice', name: 'trickled' } });
    const c = await rawConnect(d.url);
    c.socket.write(
      `POST /api/v1/boxes HTTP/1.1\r\nHost: ${new URL(d.url).host}\r\nAuthorization: Bearer ${alice.token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    void trickle(c.socket, body, 300);
    const answer = parseAnswer(await c.closed);
    expect(answer.status).toBe(408);
    expect(answer.headers.connection).toBe('close');
    expect(JSON.parse(answer.body)).toEqual({
      errors: [expect.stringMatching(/did not arrive within 1\.5 seconds/)],
      success: false,
      code: 'request_timeout',
    });
    expect((await alice.http.get('/api/v1/box/alice/trickled')).status).toBe(404);
  });

  it('answers a trickled JSON body with 408 in JSON:API on the agent-pools API', async () => {
    const body = JSON.stringify({ data: { type: 'agent-pools', attributes: { name: 'trickled' } } });
    const c = await rawConnect(d.url);
    c.socket.write(
      `POST /api/v2/organizations/acme/agent-pools HTTP/1.1\r\nHost: ${new URL(d.url).host}\r\nAuthorization: Bearer ${alice.token}\r\nContent-Type: application/vnd.api+json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    void trickle(c.socket, body, 300);
    const answer = parseAnswer(await c.closed);
    expect(answer.status).toBe(408);
    expect(JSON.parse(answer.body)).toEqual({
      errors: [
        {
          status: '408',
          code: 'request_timeout',
          title: 'request timeout',
          detail: expect.stringMatching(/did not arrive/),
        },
      ],
    });
    expect((await alice.http.get('/api/v2/organizations/acme/agent-pools')).json.data).toEqual([]);
  });

  it('drops an upload PUT that stops sending, and the URL takes the file again', async () => {
    const api = await hostedProvider(alice.http, 'alice', 'slow', '1.0.0');
    const url = (await alice.http.get(`${api}/upload`)).json.upload_path as string;
    const file = randomBytes(64 * 1024);
    const u = new URL(url);
    const stalled = await rawConnect(d.url);
    stalled.socket.write(`PUT ${u.pathname} HTTP/1.1\r\nHost: ${u.host}\r\nContent-Length: ${file.length}\r\n\r\n`);
    stalled.socket.write(file.subarray(0, 1000));
    await stalled.closed; // the daemon hangs up: no byte came for bodyIdleSeconds
    expect((await providerRow(d, 'slow', '1.0.0')).blob_sha256).toBeNull();
    expect((await rawPut(url, file)).status).toBe(200);
    expect((await providerRow(d, 'slow', '1.0.0')).size).toBe(file.length);
    await until(async () => (await stagedUploads(d)).length === 0);
  });

  it('lets an upload on a slow link run longer than the idle time: idle, never total', async () => {
    const api = await hostedProvider(alice.http, 'alice', 'slow', '1.0.1');
    const url = (await alice.http.get(`${api}/upload`)).json.upload_path as string;
    const file = randomBytes(8 * 10_000);
    async function* slowly() {
      for (let i = 0; i < 8; i++) {
        yield file.subarray(i * 10_000, (i + 1) * 10_000);
        await sleep(400); // 8 × 0.4 s: more than twice bodyIdleSeconds in all, never idle for one
      }
    }
    const put = await rawPut(url, Readable.from(slowly()), { 'content-length': String(file.length) });
    expect(put.status).toBe(200);
    expect((await providerRow(d, 'slow', '1.0.1')).size).toBe(file.length);
  });

  it("keeps idle connections open past the agents' ping interval", async () => {
    const r = await d.http.get('/healthz');
    expect(r.headers.get('keep-alive')).toBe('timeout=65');
  });
});

describe('connection caps', () => {
  let d: TestDaemon;
  const held: RawConnection[] = [];

  beforeAll(async () => {
    d = await startTestDaemon({ config: { maxConnectionsPerAddress: 10, maxConnections: 40 } });
    // /healthz answers 503 until the start's database check is done.
    await until(async () => (await d.http.get('/healthz')).status === 200);
  });
  afterAll(async () => {
    for (const c of held) c.socket.destroy();
    await d.stop();
  });

  it('refuses connections over the per-address cap at once while other addresses get /healthz and the UI', async () => {
    // The flood: each connection sends half a request and waits (slowloris).
    const flood = await Promise.all(Array.from({ length: 60 }, () => rawConnect(d.url, FLOODER)));
    held.push(...flood);
    for (const c of flood) c.socket.write(`GET /healthz HTTP/1.1\r\nHost: ${new URL(d.url).host}\r\n`);
    // Wait for the refusals (an admitted connection waits 20 s for its headers; none closes first).
    const answers: string[] = [];
    await new Promise<void>((resolve) => {
      for (const c of flood)
        void c.closed.then((t) => {
          answers.push(t);
          if (answers.length === 50) resolve();
        });
    });
    expect(flood.filter((c) => !c.socket.destroyed)).toHaveLength(10);
    for (const a of answers.map(parseAnswer)) {
      expect(a.status).toBe(503);
      expect(a.headers['retry-after']).toBe('5');
      expect(a.headers.connection).toBe('close');
      expect(JSON.parse(a.body)).toEqual({
        errors: [expect.stringMatching(/Too many connections from 127\.0\.0\.2/)],
        success: false,
        code: 'too_many_connections',
      });
    }
    // Another machine is served as usual.
    expect((await rawGet(d.url, '/healthz')).status).toBe(200);
    expect((await rawGet(d.url, '/ui/')).status).toBe(200);
    expect((await d.http.get('/api/v1/search')).status).toBe(200);
    // Closing the flood frees its address's slots.
    for (const c of flood) c.socket.destroy();
    await until(async () => (await rawGet(d.url, '/healthz', FLOODER)).status === 200);
  });

  /** A keep-alive connection from `address` that has had one answer and now sits idle. */
  const idleConnection = async (address: string): Promise<RawConnection> => {
    const c = await rawConnect(d.url, address);
    c.socket.write(`GET /healthz HTTP/1.1\r\nHost: ${new URL(d.url).host}\r\n\r\n`);
    await until(async () => {
      const a = parseAnswer(c.received());
      return a.status !== 0 && a.body.length >= Number(a.headers['content-length'] ?? 0) && a.body.length > 0;
    });
    expect(parseAnswer(c.received()).status).toBe(200);
    return c;
  };

  it('does not count idle keep-alive connections against an address (agents behind one address keep theirs)', async () => {
    const agents: RawConnection[] = [];
    for (let i = 0; i < 25; i++) agents.push(await idleConnection('127.0.0.8'));
    held.push(...agents);
    expect(agents.filter((c) => c.socket.destroyed)).toEqual([]);
    // Each can report again on its own connection, and the address still opens new ones.
    agents[0].socket.write(`GET /healthz HTTP/1.1\r\nHost: ${new URL(d.url).host}\r\nConnection: close\r\n\r\n`);
    expect(parseAnswer((await agents[0].closed).split('HTTP/1.1').slice(-1)[0].replace(/^/, 'HTTP/1.1')).status).toBe(
      200,
    );
    expect((await rawGet(d.url, '/healthz', '127.0.0.8')).status).toBe(200);
    for (const c of agents) c.socket.destroy();
  });

  it('makes room at the total cap by closing the longest-idle connection', async () => {
    const first: RawConnection[] = [];
    for (let i = 0; i < 30; i++) first.push(await idleConnection('127.0.0.9'));
    held.push(...first);
    const later: RawConnection[] = [];
    for (let i = 0; i < 15; i++) later.push(await idleConnection('127.0.0.10'));
    held.push(...later);
    // 45 connections wanted, 40 allowed: the five idle longest were closed, every newer one served.
    await until(async () => first.filter((c) => c.socket.destroyed).length === 5);
    expect(first.slice(0, 5).every((c) => c.socket.destroyed)).toBe(true);
    expect(first.slice(5).some((c) => c.socket.destroyed)).toBe(false);
    expect(later.some((c) => c.socket.destroyed)).toBe(false);
    for (const c of [...first, ...later]) c.socket.destroy();
  });

  it('refuses connections over the total cap from any address', async () => {
    const addresses = ['127.0.0.3', '127.0.0.4', '127.0.0.5', '127.0.0.6'];
    const open = await Promise.all(addresses.flatMap((a) => Array.from({ length: 10 }, () => rawConnect(d.url, a))));
    held.push(...open);
    await until(async () => (await rawGet(d.url, '/healthz', '127.0.0.7')).status === 503);
    const answer = await rawGet(d.url, '/healthz', '127.0.0.7');
    expect(answer.status).toBe(503);
    expect(JSON.parse(answer.body).errors[0]).toMatch(/limit of 40 connections/);
    for (const c of open) c.socket.destroy();
    await until(async () => (await rawGet(d.url, '/healthz', '127.0.0.7')).status === 200);
  });
});
