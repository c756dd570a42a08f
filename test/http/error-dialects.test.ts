import { mkdtempSync, rmSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorCode } from '../../daemon/src/contract/error-codes';
import type { Dialect } from '../../daemon/src/http/errors/dialects';
import { ADMIN, startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient, HttpResponse, ParsedJson } from '../helpers/http';
import { createAgentToken, createPool, createWorkspace, doc, JSONAPI, setPoolLimit } from '../helpers/agents';
import { createBox } from '../helpers/registry';
import { hostedProvider } from '../helpers/blobs';
import { serveJson, staticServer, type StaticServer } from '../helpers/mirror';
import { parseAnswer, rawConnect, trickle } from '../helpers/sockets';

// Errors carry a stable code: every mount answers errors in the dialect it was mounted
// with, and every error body names its code. One real failing request per code a mount can
// produce. What no request can provoke on a mount is covered, for every dialect × every code, by
// daemon/src/http/errors/middleware.test.ts:
// - box (/api/v1, the box routes of /api/v2, the root): reauthentication_required, last_owner,
//   last_admin, limit_reached and precondition_failed (no box route refuses with them); internal (only a damaged
//   database: test/data/health.test.ts checks that body).
// - jsonapi: two_factor_required, reauthentication_required, last_owner, last_admin (accounts live
//   in the box API and /api/boxyard), offline, upstream_failed, insufficient_storage (no JSON:API
//   route stores files or asks an upstream), internal.
// - ui (/api/boxyard): precondition_failed, limit_reached (pools are created under /api/v2), offline and
//   upstream_failed (mirror jobs report those in the job, not in an answer), internal.
// - agent (/api/agent): forbidden, bad_parameter, conflict, precondition_failed, limit_reached and the account,
//   storage and upstream codes (the protocol has two routes that do none of that), internal.
// - oauth2 (POST /oauth2/token): only what a token request can be refused with; the rest is the middleware test's.
// - too_many_connections is answered before a request (and its path) is read: the box shape.

/** An answer from any of the clients below. */
interface Answer {
  status: number;
  header(name: string): string | null;
  json: ParsedJson;
}

const fromHttp = (r: HttpResponse): Answer => ({ status: r.status, header: (n) => r.headers.get(n), json: r.json });

/** A raw request: any Host header, a declared length, a body sent slowly or not at all. */
async function raw(
  url: string,
  method: string,
  path: string,
  opts: {
    host?: string;
    headers?: Record<string, string>;
    body?: string;
    length?: number;
    trickleMs?: number;
    from?: string;
  } = {},
): Promise<Answer> {
  const c = await rawConnect(url, opts.from);
  const body = opts.body ?? '';
  const head = [
    `${method} ${path} HTTP/1.1`,
    `Host: ${opts.host ?? new URL(url).host}`,
    'Connection: close',
    'Accept: application/json',
    ...Object.entries(opts.headers ?? {}).map(([k, v]) => `${k}: ${v}`),
    ...(opts.length !== undefined || body ? [`Content-Length: ${opts.length ?? Buffer.byteLength(body)}`] : []),
  ];
  c.socket.write(`${head.join('\r\n')}\r\n\r\n`);
  if (opts.trickleMs) void trickle(c.socket, body, opts.trickleMs);
  else if (body) c.socket.write(body);
  const a = parseAnswer(await c.closed);
  let json: unknown;
  try {
    json = JSON.parse(a.body);
  } catch {
    json = undefined;
  }
  return { status: a.status, header: (n) => a.headers[n.toLowerCase()] ?? null, json };
}

/** Codes whose refusal a Boxyard agent may retry: no `"action":"stop"` in the agent dialect. */
const AGENT_RETRIES = new Set<ErrorCode>([
  'rate_limited',
  'request_timeout',
  'maintenance',
  'too_many_connections',
  'upstream_failed',
  'insufficient_storage',
  'internal',
]);

/** The answer is `code` with `status` in `dialect`: its media type, its body's shape, and the code in it. */
function expectError(a: Answer, dialect: Dialect, code: ErrorCode, status: number): void {
  const what = `${dialect} ${code}: ${JSON.stringify(a.json)}`;
  expect(a.status, what).toBe(status);
  if (dialect === 'jsonapi') {
    expect(a.header('content-type'), what).toBe(JSONAPI);
    expect(Object.keys(a.json), what).toEqual(['errors']);
    expect(a.json.errors, what).toHaveLength(1);
    const [e] = a.json.errors;
    expect(e, what).toMatchObject({
      status: String(status),
      code,
      title: expect.any(String),
      detail: expect.any(String),
    });
    expect(
      Object.keys(e).filter((k) => !['status', 'code', 'title', 'detail', 'source'].includes(k)),
      what,
    ).toEqual([]);
    return;
  }
  expect(a.header('content-type'), what).toMatch(/^application\/json/);
  if (dialect === 'hcp') {
    // google.rpc.Status: the gRPC code, the message Packer shows, Boxyard's code as the ErrorInfo's reason.
    expect(Object.keys(a.json).sort(), what).toEqual(['code', 'details', 'message']);
    expect(a.json, what).toMatchObject({ code: expect.any(Number), message: expect.any(String) });
    expect(a.json.details, what).toMatchObject([{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: code }]);
    return;
  }
  if (dialect === 'oauth2') {
    // RFC 6749 §5.2, plus the stable code.
    expect(Object.keys(a.json).sort(), what).toEqual(['code', 'error', 'error_description']);
    expect(a.json, what).toMatchObject({ error: expect.stringMatching(/^[a-z_]+$/), code });
    expect(a.header('cache-control'), what).toBe('no-store');
    return;
  }
  expect(a.json, what).toMatchObject({ errors: [expect.any(String)], success: false, code });
  expect(a.json.errors, what).toHaveLength(1);
  const stop = dialect === 'agent' && !AGENT_RETRIES.has(code);
  expect(a.json.action, what).toBe(stop ? 'stop' : undefined);
  const allowed = [
    'errors',
    'success',
    'code',
    ...(code === 'two_factor_required' ? ['two_factor'] : []),
    ...(stop ? ['action'] : []),
  ];
  expect(
    Object.keys(a.json).filter((k) => !allowed.includes(k)),
    what,
  ).toEqual([]);
}

interface Case {
  dialect: Dialect;
  code: ErrorCode;
  status: number;
  via: string;
  send(): Promise<Answer>;
  also?(a: Answer): void;
}

/** Runs each case as its own test, and checks no dialect's code was listed twice by mistake. */
function walk(cases: Case[]): void {
  const seen = new Set(cases.map((c) => `${c.dialect} ${c.code} ${c.via}`));
  if (seen.size !== cases.length) throw new Error('a case is listed twice');
  for (const c of cases) {
    it(`${c.dialect}: ${c.code} (${c.status}) from ${c.via}`, async () => {
      const a = await c.send();
      expectError(a, c.dialect, c.code, c.status);
      c.also?.(a);
    });
  }
}

describe('every mount answers in its dialect, with the code', () => {
  let d: TestDaemon;
  let admin: HttpClient;
  let alice: { token: string; http: HttpClient };
  let bob: { token: string; http: HttpClient };
  let api: HttpClient;
  let agentToken: string;
  let agentId: string;

  beforeAll(async () => {
    d = await startTestDaemon({ config: { jsonBodySeconds: 1 } });
    admin = d.http.withToken(d.adminToken);
    alice = await d.user('alice', { orgs: ['acme'] });
    bob = await d.user('bob');
    await createBox(alice.http, 'alice', 'base');
    expect(
      (await alice.http.put('/api/boxyard/organizations/acme/members/bob', { member: { role: 'member' } })).status,
    ).toBe(200);
    api = alice.http.withContentType(JSONAPI);
    await setPoolLimit(api, 'acme', 1);
    await createWorkspace(api, 'acme', 'ws');
    const pool = await createPool(api, 'acme', 'pool');
    agentToken = (await createAgentToken(api, pool.id)).token;
    const reg = await d.http.withToken(agentToken).post('/api/agent/register', { name: 'runner' });
    expect(reg.status, reg.text).toBe(201);
    agentId = reg.json.agent.id;
    // A user with an authenticator app: logins need its code.
    const totpUser = await d.user('totp');
    const secret = (await totpUser.http.post('/api/boxyard/two-factor/totp')).json.two_factor.secret as string;
    const code = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30 }).generate();
    expect(
      (
        await totpUser.http.post('/api/boxyard/two-factor/totp/confirm', {
          two_factor: { code },
          current_password: 'totp-password',
        })
      ).status,
    ).toBe(200);
  });
  afterAll(() => d?.stop());

  const login = { user: { login: 'totp', password: 'totp-password' } };
  const twoFactor = (a: Answer) =>
    expect(a.json.two_factor).toEqual({ default_delivery_method: 'app', delivery_methods: ['app'] });
  const closes = (a: Answer) => expect(a.header('connection')).toBe('close');

  /** What every JSON API (not the root) answers alike: body, Host and method refusals. */
  const common = (dialect: Dialect, post: string, wrongMethod: [string, string], token: () => string): Case[] => {
    const auth = () => ({ Authorization: `Bearer ${token()}` });
    const json = () => ({ 'Content-Type': dialect === 'jsonapi' ? JSONAPI : 'application/json', ...auth() });
    return [
      {
        dialect,
        code: 'bad_request',
        status: 400,
        via: `bad JSON to ${post}`,
        send: () => raw(d.url, 'POST', post, { headers: json(), body: '{"not json' }),
      },
      {
        dialect,
        code: 'payload_too_large',
        status: 413,
        via: `a 2 MB body to ${post}`,
        send: () => raw(d.url, 'POST', post, { headers: json(), length: 2_000_000 }),
        also: closes,
      },
      {
        dialect,
        code: 'request_timeout',
        status: 408,
        via: `a trickled body to ${post}`,
        send: () => raw(d.url, 'POST', post, { headers: json(), body: '{"a":"bcdefgh"}', trickleMs: 400 }),
        also: closes,
      },
      {
        dialect,
        code: 'misdirected',
        status: 421,
        via: `a foreign Host on ${post}`,
        send: () => raw(d.url, 'POST', post, { headers: json(), host: 'attacker.example', body: '{}' }),
      },
      {
        dialect,
        code: 'method_not_allowed',
        status: 405,
        via: `${wrongMethod[0]} ${wrongMethod[1]}`,
        send: () => raw(d.url, wrongMethod[0], wrongMethod[1], { headers: auth() }),
        also: (a) => expect(a.header('allow')).toBeTruthy(),
      },
    ];
  };

  describe('box (Vagrant Cloud API v1 and v2)', () => {
    for (const v of ['v1', 'v2']) {
      const p = `/api/${v}`;
      walk([
        {
          dialect: 'box',
          code: 'not_found',
          status: 404,
          via: `${p}/box of a missing box`,
          send: async () => fromHttp(await d.http.get(`${p}/box/alice/nope`)),
        },
        {
          dialect: 'box',
          code: 'validation',
          status: 403,
          via: `${p}/boxes with a bad name`,
          send: async () =>
            fromHttp(await alice.http.post(`${p}/boxes`, { box: { username: 'alice', name: 'no spaces allowed' } })),
        },
        {
          dialect: 'box',
          code: 'bad_parameter',
          status: 403,
          via: `${p}/search?sort=sideways`,
          send: async () => fromHttp(await d.http.get(`${p}/search?sort=sideways`)),
        },
        {
          dialect: 'box',
          code: 'unauthorized',
          status: 401,
          via: `${p}/authenticate with a bad token`,
          send: async () => fromHttp(await d.http.withToken('not-a-token').get(`${p}/authenticate`)),
        },
        {
          dialect: 'box',
          code: 'forbidden',
          status: 403,
          via: `${p}/boxes in another's namespace`,
          send: async () => fromHttp(await alice.http.post(`${p}/boxes`, { box: { username: 'bob', name: 'theirs' } })),
        },
        {
          dialect: 'box',
          code: 'conflict',
          status: 422,
          via: `${p}/boxes of an existing name`,
          send: async () => fromHttp(await alice.http.post(`${p}/boxes`, { box: { username: 'alice', name: 'base' } })),
        },
        {
          dialect: 'box',
          code: 'two_factor_required',
          status: 406,
          via: `${p}/authenticate without a code`,
          send: async () => fromHttp(await d.http.post(`${p}/authenticate`, login)),
          also: twoFactor,
        },
        // A path no route answers, below a box route's first segment: still Vagrant's dialect.
        {
          dialect: 'box',
          code: 'not_found',
          status: 404,
          via: `${p}/box/… no route answers`,
          send: async () => fromHttp(await d.http.get(`${p}/box/alice/base/no/such/route`)),
        },
        ...common('box', `${p}/boxes`, ['DELETE', `${p}/search`], () => alice.token),
      ]);
    }
  });

  describe('box (the root: catalog, downloads, uploads)', () => {
    walk([
      {
        dialect: 'box',
        code: 'not_found',
        status: 404,
        via: 'the catalog of a missing box',
        send: async () => fromHttp(await d.http.get('/alice/nope')),
      },
      // A root route under /api/v2 speaks the root's dialect, not JSON:API.
      {
        dialect: 'box',
        code: 'not_found',
        status: 404,
        via: 'the v2 catalog path of a missing box',
        send: async () => fromHttp(await d.http.get('/api/v2/vagrant/alice/nope')),
      },
      {
        dialect: 'box',
        code: 'not_found',
        status: 404,
        via: 'a download of a missing box',
        send: async () =>
          fromHttp(await d.http.get('/alice/boxes/nope/versions/1.0.0/providers/virtualbox/amd64/vagrant.box')),
      },
      {
        dialect: 'box',
        code: 'misdirected',
        status: 421,
        via: 'a foreign Host on the catalog',
        send: () => raw(d.url, 'GET', '/alice/base', { host: 'attacker.example' }),
      },
    ]);
  });

  describe('jsonapi (the agent-pools API under /api/v2)', () => {
    walk([
      {
        dialect: 'jsonapi',
        code: 'not_found',
        status: 404,
        via: 'an unknown pool id',
        send: async () => fromHttp(await api.get('/api/v2/agent-pools/apool-nonexisting')),
      },
      {
        dialect: 'jsonapi',
        code: 'not_found',
        status: 404,
        via: 'a path no route answers',
        send: async () => fromHttp(await api.get('/api/v2/organizations/acme/no-such-thing')),
      },
      {
        dialect: 'jsonapi',
        code: 'validation',
        status: 422,
        via: 'a pool without a name',
        send: async () =>
          fromHttp(await api.post('/api/v2/organizations/acme/agent-pools', doc('agent-pools', { name: '' }))),
        also: (a) => expect(a.json.errors[0].source).toEqual({ pointer: '/data/attributes/name' }),
      },
      {
        dialect: 'jsonapi',
        code: 'bad_parameter',
        status: 400,
        via: 'sort=sideways',
        send: async () => fromHttp(await api.get('/api/v2/organizations/acme/agent-pools?sort=sideways')),
        also: (a) => expect(a.json.errors[0].source).toEqual({ parameter: 'sort' }),
      },
      {
        dialect: 'jsonapi',
        code: 'unauthorized',
        status: 401,
        via: 'no token',
        send: async () => fromHttp(await d.http.get('/api/v2/organizations')),
      },
      {
        dialect: 'jsonapi',
        code: 'forbidden',
        status: 403,
        via: 'a member changing the organization',
        send: async () =>
          fromHttp(
            await bob.http
              .withContentType(JSONAPI)
              .patch('/api/v2/organizations/acme', doc('organizations', { email: 'x@example.com' })),
          ),
      },
      {
        dialect: 'jsonapi',
        code: 'conflict',
        status: 422,
        via: 'a workspace of an existing name',
        send: async () =>
          fromHttp(await api.post('/api/v2/organizations/acme/workspaces', doc('workspaces', { name: 'ws' }))),
        also: (a) => expect(a.json.errors[0].source).toEqual({ pointer: '/data/attributes/name' }),
      },
      {
        dialect: 'jsonapi',
        code: 'limit_reached',
        status: 422,
        via: "a second pool past an owner's limit of one",
        send: async () =>
          fromHttp(await api.post('/api/v2/organizations/acme/agent-pools', doc('agent-pools', { name: 'second' }))),
      },
      {
        dialect: 'jsonapi',
        code: 'precondition_failed',
        status: 412,
        via: 'deleting an idle agent',
        send: async () =>
          fromHttp(await api.delete(`/api/v2/agents/${agentId}`, { headers: { 'content-type': JSONAPI } })),
      },
      ...common('jsonapi', '/api/v2/organizations', ['PUT', '/api/v2/ping'], () => alice.token),
    ]);
  });

  describe('ui (/api/boxyard)', () => {
    walk([
      {
        dialect: 'ui',
        code: 'not_found',
        status: 404,
        via: 'a missing user',
        send: async () => fromHttp(await admin.get('/api/boxyard/users/nobody')),
      },
      {
        dialect: 'ui',
        code: 'not_found',
        status: 404,
        via: 'a path no route answers',
        send: async () => fromHttp(await admin.get('/api/boxyard/no/such/thing')),
      },
      {
        dialect: 'ui',
        code: 'validation',
        status: 403,
        via: 'a user without a name',
        send: async () =>
          fromHttp(
            await admin.post('/api/boxyard/users', { user: { username: '', password: 'long-enough-password' } }),
          ),
      },
      {
        dialect: 'ui',
        code: 'bad_parameter',
        status: 403,
        via: 'mirror jobs without ?mirror=',
        send: async () => fromHttp(await admin.get('/api/boxyard/mirror-jobs')),
      },
      {
        dialect: 'ui',
        code: 'unauthorized',
        status: 401,
        via: 'no token',
        send: async () => fromHttp(await d.http.get('/api/boxyard/user')),
      },
      {
        dialect: 'ui',
        code: 'forbidden',
        status: 403,
        via: 'a user listing users',
        send: async () => fromHttp(await alice.http.get('/api/boxyard/users')),
      },
      {
        dialect: 'ui',
        code: 'conflict',
        status: 422,
        via: 'a user of an existing name',
        send: async () =>
          fromHttp(
            await admin.post('/api/boxyard/users', { user: { username: 'alice', password: 'long-enough-password' } }),
          ),
      },
      {
        dialect: 'ui',
        code: 'two_factor_required',
        status: 406,
        via: 'a session without a code',
        send: async () =>
          fromHttp(await d.http.post('/api/boxyard/session', login, { headers: { 'x-boxyard-csrf': '1' } })),
        also: twoFactor,
      },
      {
        dialect: 'ui',
        code: 'reauthentication_required',
        status: 403,
        via: 'a new password with a wrong current one',
        send: async () =>
          fromHttp(
            await alice.http.patch('/api/boxyard/users/alice', {
              user: { password: 'alice-new-password' },
              current_password: 'wrong',
            }),
          ),
      },
      {
        dialect: 'ui',
        code: 'last_owner',
        status: 422,
        via: 'the last owner leaving',
        send: async () => fromHttp(await alice.http.delete('/api/boxyard/organizations/acme/members/alice')),
      },
      {
        dialect: 'ui',
        code: 'last_admin',
        status: 422,
        via: 'deleting the last administrator',
        send: async () => fromHttp(await admin.delete(`/api/boxyard/users/${ADMIN.username}`)),
      },
      ...common('ui', '/api/boxyard/users', ['DELETE', '/api/boxyard/overview'], () => d.adminToken),
    ]);
  });

  describe('oauth2 (POST /oauth2/token)', () => {
    const token = (body: string, headers: Record<string, string> = {}) =>
      raw(d.url, 'POST', '/oauth2/token', {
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
        body,
      });
    const oauth2Error = (error: string) => (a: Answer) => expect(a.json.error).toBe(error);
    walk([
      {
        dialect: 'oauth2',
        code: 'unauthorized',
        status: 401,
        via: 'an unknown client over HTTP Basic',
        send: () =>
          token('grant_type=client_credentials', {
            Authorization: `Basic ${Buffer.from('nobody:x').toString('base64')}`,
          }),
        also: (a) => {
          expect(a.json.error).toBe('invalid_client');
          expect(a.header('www-authenticate')).toMatch(/^Basic /);
        },
      },
      {
        dialect: 'oauth2',
        code: 'bad_request',
        status: 400,
        via: 'another grant type',
        send: () => token('grant_type=password&client_id=a&client_secret=b'),
        also: oauth2Error('unsupported_grant_type'),
      },
      {
        dialect: 'oauth2',
        code: 'bad_request',
        status: 400,
        via: 'a JSON body',
        send: () => token('{}', { 'Content-Type': 'application/json' }),
        also: oauth2Error('invalid_request'),
      },
      {
        dialect: 'oauth2',
        code: 'method_not_allowed',
        status: 405,
        via: 'GET',
        send: () => raw(d.url, 'GET', '/oauth2/token'),
        also: oauth2Error('invalid_request'),
      },
      {
        dialect: 'oauth2',
        code: 'payload_too_large',
        status: 413,
        via: 'a form past 16 KiB',
        send: () => token(`grant_type=client_credentials&x=${'a'.repeat(20_000)}`),
      },
    ]);
  });

  describe('agent (/api/agent)', () => {
    const agent = () => d.http.withToken(agentToken);
    walk([
      {
        dialect: 'agent',
        code: 'unauthorized',
        status: 401,
        via: 'an unknown agent token',
        send: async () => fromHttp(await d.http.withToken('at-unknown').post('/api/agent/register', { name: 'x' })),
      },
      {
        dialect: 'agent',
        code: 'not_found',
        status: 404,
        via: 'a report of an unknown agent',
        send: async () => fromHttp(await agent().post('/api/agent/agents/agent-unknown/status', { status: 'idle' })),
      },
      {
        dialect: 'agent',
        code: 'not_found',
        status: 404,
        via: 'a path no route answers',
        send: async () => fromHttp(await agent().post('/api/agent/no-such-thing', {})),
      },
      {
        dialect: 'agent',
        code: 'validation',
        status: 403,
        via: 'a status no agent has',
        send: async () => fromHttp(await agent().post(`/api/agent/agents/${agentId}/status`, { status: 'flying' })),
      },
      ...common('agent', '/api/agent/register', ['GET', '/api/agent/register'], () => agentToken),
    ]);
  });

  describe("hcp (HCP's registry API and operations)", () => {
    const reg = '/vagrant/2022-09-30/registry';
    walk([
      ...common('hcp', `${reg}/acme/boxes`, ['DELETE', `${reg}/acme/boxes`], () => alice.token),
      {
        dialect: 'hcp',
        code: 'not_found',
        status: 404,
        via: 'an unknown registry',
        send: async () => fromHttp(await alice.http.post(`${reg}/nobody-here/boxes`, { name: 'web' })),
      },
      {
        dialect: 'hcp',
        code: 'not_found',
        status: 404,
        via: 'a path no route answers under the mount',
        send: async () => fromHttp(await alice.http.get('/vagrant/2022-09-30/nothing')),
      },
      {
        dialect: 'hcp',
        code: 'not_found',
        status: 404,
        via: 'an operation never returned',
        send: async () =>
          fromHttp(await alice.http.get('/operation/2020-05-05/organizations/o/projects/p/operations/x/wait')),
      },
      {
        dialect: 'hcp',
        code: 'validation',
        status: 400,
        via: 'a box name that breaks the rules',
        send: async () => fromHttp(await alice.http.post(`${reg}/acme/boxes`, { name: 'no spaces' })),
      },
      {
        dialect: 'hcp',
        code: 'unauthorized',
        status: 401,
        via: 'no token',
        send: async () => fromHttp(await d.http.post(`${reg}/acme/boxes`, { name: 'web' })),
      },
      {
        dialect: 'hcp',
        code: 'forbidden',
        status: 403,
        via: "another organization's user creating a box in acme",
        send: async () => {
          const mallory = await d.user('mallory', { orgs: ['mallory-org'] });
          return fromHttp(await mallory.http.post(`${reg}/acme/boxes`, { name: 'web' }));
        },
      },
      {
        dialect: 'hcp',
        code: 'conflict',
        status: 409,
        via: 'a box that exists',
        send: async () => fromHttp(await alice.http.post(`${reg}/alice/boxes`, { name: 'base' })),
      },
    ]);
  });

  describe('in maintenance mode', () => {
    beforeAll(async () => {
      expect((await admin.put('/api/boxyard/settings', { settings: { maintenance: true } })).status).toBe(200);
    });
    afterAll(async () => {
      expect((await admin.put('/api/boxyard/settings', { settings: { maintenance: false } })).status).toBe(200);
    });
    const retryAfter = (a: Answer) => expect(a.header('retry-after')).toBe('60');
    // Administrators keep the web UI's own API (/api/boxyard) in maintenance mode: its refusal is a user's.
    walk(
      (
        [
          ['box', '/api/v1/search'],
          ['box', '/api/v2/search'],
          ['box', '/alice/base'],
          ['jsonapi', '/api/v2/organizations'],
          ['ui', '/api/boxyard/tokens'],
          ['agent', '/api/agent/register'],
        ] as Array<[Dialect, string]>
      ).map(([dialect, path]) => ({
        dialect,
        code: 'maintenance',
        status: 503,
        via: path,
        send: () =>
          raw(d.url, 'GET', path, {
            headers: { Authorization: `Bearer ${dialect === 'ui' ? alice.token : d.adminToken}` },
          }),
        also: retryAfter,
      })),
    );
  });
});

describe('refusals before a route: the request rate and the connection cap', () => {
  let d: TestDaemon;
  beforeAll(async () => {
    d = await startTestDaemon({ config: { requestsPerMinute: 2, maxConnectionsPerAddress: 2 } });
  });
  afterAll(() => d?.stop());

  // Anonymous requests count per address: each mount is asked from an address of its own.
  const mounts: Array<[Dialect, string, string]> = [
    ['box', '/api/v1/search', '127.0.0.11'],
    ['box', '/api/v2/search', '127.0.0.12'],
    ['box', '/alice/base', '127.0.0.13'],
    ['jsonapi', '/api/v2/ping', '127.0.0.14'],
    ['ui', '/api/boxyard/user', '127.0.0.15'],
    ['agent', '/api/agent/register', '127.0.0.16'],
  ];
  walk(
    mounts.map(([dialect, path, from]) => ({
      dialect,
      code: 'rate_limited',
      status: 429,
      via: path,
      send: async () => {
        for (let i = 0; i < 2; i++) expect((await raw(d.url, 'GET', path, { from })).status).not.toBe(429);
        return raw(d.url, 'GET', path, { from });
      },
      also: (a) => expect(a.header('retry-after')).toMatch(/^\d+$/),
    })),
  );

  it('box shape: too_many_connections (503) for a connection over the cap, before any request is read', async () => {
    const held = await Promise.all([1, 2].map(() => rawConnect(d.url, '127.0.0.21')));
    try {
      for (const c of held) c.socket.write(`GET /healthz HTTP/1.1\r\nHost: ${new URL(d.url).host}\r\n`);
      await new Promise((r) => setTimeout(r, 100));
      const a = await raw(d.url, 'GET', '/api/v2/ping', { from: '127.0.0.21' });
      expectError(a, 'box', 'too_many_connections', 503);
      expect(a.header('retry-after')).toBe('5');
    } finally {
      for (const c of held) c.socket.destroy();
    }
  });
});

const SIX_TIB = 6 * 2 ** 40;

describe('the box file store and the pull-through cache', () => {
  let dataDir: string;
  let d: TestDaemon;
  let http: HttpClient;
  let uploadUrl: string;
  let upstream: StaticServer;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'boxyard-dialects-'));
    // An upstream whose catalog names a file it fails to serve.
    upstream = await staticServer();
    upstream.route(
      '/bento/broken',
      serveJson({
        name: 'bento/broken',
        versions: [{ version: '1.0.0', providers: [{ name: 'virtualbox', url: `${upstream.url}/broken.box` }] }],
      }),
    );
    upstream.route('/broken.box', (_req, res) => {
      res.statusCode = 500;
      res.end('upstream trouble');
    });
    // A reserve above what the disk has free: every file is refused.
    const free = statfsSync(dataDir);
    d = await startTestDaemon({
      dataDir,
      config: { diskReserveMb: Math.ceil((free.bavail * free.bsize) / 1024 / 1024) + 1024, upstream: upstream.url },
    });
    http = d.http.withToken(d.adminToken);
    expect((await http.post('/api/boxyard/organizations', { organization: { name: 'acme' } })).status).toBe(201);
    await createBox(http, 'acme', 'local');
    uploadUrl = (
      await http.get(`${await hostedProvider(http, 'acme', 'local', '1.0.0', { architecture: 'amd64' })}/upload`)
    ).json.upload_path;
  });
  afterAll(async () => {
    await d?.stop();
    await upstream?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  walk([
    // 6 TiB announced: more than the disk holds, and more than an S3 object may be (5 TiB), so
    // either store refuses before the body is read.
    {
      dialect: 'box',
      code: 'insufficient_storage',
      status: 507,
      via: 'an upload PUT',
      send: () => raw(d.url, 'PUT', new URL(uploadUrl).pathname, { length: SIX_TIB, body: 'x'.repeat(1000) }),
    },
    {
      dialect: 'ui',
      code: 'insufficient_storage',
      status: 507,
      via: 'an import',
      send: () =>
        raw(d.url, 'PUT', '/api/boxyard/import/acme/imported/1.0.0?provider=virtualbox', {
          headers: { Authorization: `Bearer ${d.adminToken}` },
          length: SIX_TIB,
          body: 'x'.repeat(1000),
        }),
    },
    {
      dialect: 'box',
      code: 'upstream_failed',
      status: 502,
      via: 'a pull-through download the upstream fails',
      send: async () => {
        const catalog = await d.http.get('/bento/broken');
        expect(catalog.status, catalog.text).toBe(200);
        return fromHttp(await d.http.get(new URL(catalog.json.versions[0].providers[0].url).pathname));
      },
    },
  ]);

  describe('offline', () => {
    beforeAll(async () => {
      expect((await http.put('/api/boxyard/settings', { settings: { offline: true } })).status).toBe(200);
    });
    walk([
      {
        dialect: 'box',
        code: 'offline',
        status: 404,
        via: 'the catalog of a box not held here',
        send: async () => fromHttp(await d.http.get('/bento/elsewhere')),
      },
    ]);
  });
});
