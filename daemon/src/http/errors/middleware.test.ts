import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES, errorCodeOf, isErrorCode, type ErrorCode } from '../../contract/error-codes';
import { AppError, ConflictError, ValidationError } from '../../lib/errors';
import { DIALECTS, jsonapiSource, type Dialect } from './dialects';
import { errorMiddleware } from './middleware';

let server: Server | undefined;
afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

async function listen(app: Koa): Promise<string> {
  const listening = createServer(app.callback());
  server = listening;
  await new Promise<void>((r) => listening.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
}

/** A bare app in one dialect whose only route throws `err`; returns its URL and what was logged. */
async function appThrowing(err: unknown, dialect: Dialect = 'box') {
  const logged: Array<Record<string, unknown>> = [];
  const log = pino(
    { level: 'error' },
    {
      write: (line: string) => {
        logged.push(JSON.parse(line));
      },
    },
  );
  const app = new Koa();
  app.use(errorMiddleware(log, () => dialect));
  app.use(() => {
    throw err;
  });
  return { url: await listen(app), logged };
}

describe('errorMiddleware', () => {
  it('answers an unknown error 500 with the request id, never its message, and logs it once', async () => {
    const { url, logged } = await appThrowing(new Error('SQLITE_CORRUPT at /secret/path/boxyard.db'));
    const res = await fetch(`${url}/api/v1/box/a/b`, { headers: { 'x-request-id': 'req-42' } });
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(text).not.toContain('secret');
    expect(text).not.toContain('SQLITE');
    expect(JSON.parse(text)).toEqual({ errors: [expect.stringContaining('req-42')], success: false, code: 'internal' });
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ requestId: 'req-42', msg: 'unhandled error' });
  });
  it('makes a request id for a failure the client sent none for, and sends it in the header and the message', async () => {
    const { url, logged } = await appThrowing(new Error('boom'));
    const res = await fetch(`${url}/api/v1/box/a/b`, { headers: { 'x-request-id': 'not ok!' } });
    expect(res.status).toBe(500);
    const id = res.headers.get('x-request-id');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(((await res.json()) as { errors: string[] }).errors[0]).toContain(id);
    expect(logged[0]).toMatchObject({ requestId: id });
  });

  it('echoes a well-formed client request id on a success, and adds none of its own', async () => {
    const app = new Koa();
    app.use(errorMiddleware(pino({ level: 'silent' }), () => 'box'));
    app.use((ctx) => {
      ctx.body = { ok: true };
    });
    const url = `${await listen(app)}/`;
    expect((await fetch(url, { headers: { 'x-request-id': 'req-7' } })).headers.get('x-request-id')).toBe('req-7');
    expect((await fetch(url)).headers.get('x-request-id')).toBeNull();
  });

  it('renders in the dialect the mount names, whatever the path', async () => {
    const err = new ValidationError('name is required', { field: 'name' });
    const jsonapi = await fetch(`${(await appThrowing(err, 'jsonapi')).url}/api/v2/box/a/b`);
    expect(jsonapi.status).toBe(422);
    expect(jsonapi.headers.get('content-type')).toContain('application/vnd.api+json');
    expect(await jsonapi.json()).toEqual({
      errors: [
        {
          status: '422',
          code: 'validation',
          title: 'invalid attribute',
          detail: 'name is required',
          source: { pointer: '/data/attributes/name' },
        },
      ],
    });
    server?.close();
    const box = await fetch(`${(await appThrowing(err, 'box')).url}/api/v2/organizations/x/agent-pools`);
    expect(box.status).toBe(403);
    expect(await box.json()).toEqual({ errors: ['name is required'], success: false, code: 'validation' });
  });

  it('gives a bare 404 or 405 from the routers a body with its code', async () => {
    const app = new Koa();
    app.use(errorMiddleware(pino({ level: 'silent' }), () => 'jsonapi'));
    app.use((ctx) => {
      if (ctx.path === '/405') ctx.status = 405;
    });
    const url = await listen(app);
    const missing = await fetch(`${url}/nowhere`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({
      errors: [
        {
          status: '404',
          code: 'not_found',
          title: 'not found',
          detail: expect.stringContaining('No route for GET /nowhere'),
        },
      ],
    });
    const method = await fetch(`${url}/405`, { method: 'POST' });
    expect(method.status).toBe(405);
    expect(await method.json()).toMatchObject({ errors: [{ status: '405', code: 'method_not_allowed' }] });
  });

  it('answers HEAD errors without a body', async () => {
    const { url } = await appThrowing(new ConflictError('already been released'));
    const res = await fetch(`${url}/org/box`, { method: 'HEAD' });
    expect(res.status).toBe(422);
    expect(await res.text()).toBe('');
  });
});

/**
 * Every dialect × every code, through the middleware: the status (a contract with vagrant, the
 * vagrant_cloud gem, Packer, go-tfe and the tfe provider), the media type, the body's shape and
 * its code. The statuses are written out here, not read from dialects.ts, so a change to that
 * table has to change this one too.
 */
describe('every dialect answers every code', () => {
  const BOX_STATUS: Record<ErrorCode, number> = {
    bad_request: 400,
    bad_parameter: 403,
    unauthorized: 401,
    forbidden: 403,
    not_found: 404,
    method_not_allowed: 405,
    misdirected: 421,
    https_required: 400,
    validation: 403,
    conflict: 422,
    precondition_failed: 412,
    two_factor_required: 406,
    reauthentication_required: 403,
    last_owner: 422,
    last_admin: 422,
    limit_reached: 422,
    payload_too_large: 413,
    request_timeout: 408,
    rate_limited: 429,
    too_many_connections: 503,
    maintenance: 503,
    offline: 404,
    upstream_failed: 502,
    address_not_allowed: 422,
    insufficient_storage: 507,
    internal: 500,
  };
  const STATUS: Record<Dialect, Record<ErrorCode, number>> = {
    box: BOX_STATUS,
    ui: BOX_STATUS,
    agent: BOX_STATUS,
    // HCP Terraform: 400 for a bad query parameter, 422 for an invalid document.
    jsonapi: { ...BOX_STATUS, bad_parameter: 400, validation: 422 },
    // HCP's gateway: INVALID_ARGUMENT is 400, a state that forbids the change (FAILED_PRECONDITION) 409.
    hcp: {
      ...BOX_STATUS,
      bad_parameter: 400,
      validation: 400,
      conflict: 409,
      last_owner: 409,
      last_admin: 409,
      limit_reached: 409,
      precondition_failed: 409,
      address_not_allowed: 400,
    },
    // RFC 6749 §5.2: a client's mistakes are 400 but for those with a status of their own.
    oauth2: Object.fromEntries(
      Object.entries(BOX_STATUS).map(([code, status]) => [
        code,
        status < 500 && ![401, 405, 408, 413, 421, 429].includes(status) ? 400 : status,
      ]),
    ) as Record<ErrorCode, number>,
  };
  const OAUTH2_ERROR = (code: ErrorCode, status: number) =>
    code === 'unauthorized' ? 'invalid_client' : status >= 500 ? 'server_error' : 'invalid_request';
  /** What the agent may retry (it stops on every other refusal). */
  const AGENT_RETRIES = new Set<ErrorCode>([
    'rate_limited',
    'request_timeout',
    'too_many_connections',
    'maintenance',
    'upstream_failed',
    'insufficient_storage',
    'internal',
  ]);

  let url: string;
  let own: Server;
  beforeAll(async () => {
    const app = new Koa();
    app.use(errorMiddleware(pino({ level: 'silent' }), (ctx) => ctx.get('x-dialect') as Dialect));
    app.use((ctx) => {
      const code = ctx.path.slice(1) as ErrorCode;
      const details =
        code === 'two_factor_required'
          ? { deliveryMethods: ['app', 'sms'] }
          : code === 'rate_limited' || code === 'maintenance'
            ? { retryAfterSeconds: 7 }
            : code === 'validation'
              ? { field: 'name' }
              : // A URL the client gave (422); one an upstream named has no field (502, below).
                code === 'address_not_allowed'
                ? { field: 'url' }
                : code === 'bad_parameter'
                  ? { field: 'filter[x]' }
                  : {};
      if (ctx.get('x-named-by-upstream')) throw new AppError(code, `failed with ${code}`);
      throw new AppError(code, `failed with ${code}`, details);
    });
    own = createServer(app.callback());
    await new Promise<void>((r) => own.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(own.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => own.close(() => r())));

  for (const dialect of DIALECTS) {
    it.each(ERROR_CODES.map((c) => [c]))(`${dialect}: %s`, async (code) => {
      const res = await fetch(`${url}/${code}`, { headers: { 'x-dialect': dialect } });
      const body = await res.json();
      expect(res.status).toBe(STATUS[dialect][code]);
      expect(errorCodeOf(body)).toBe(code);
      const message = `failed with ${code}`;
      if (dialect === 'jsonapi') {
        expect(res.headers.get('content-type')).toBe('application/vnd.api+json');
        const source =
          code === 'validation'
            ? { source: { pointer: '/data/attributes/name' } }
            : code === 'bad_parameter'
              ? { source: { parameter: 'filter[x]' } }
              : code === 'address_not_allowed'
                ? { source: { pointer: '/data/attributes/url' } }
                : {};
        expect(body).toEqual({
          errors: [{ status: String(res.status), code, title: expect.any(String), detail: message, ...source }],
        });
      } else if (dialect === 'hcp') {
        expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
        const field = code === 'validation' ? 'name' : code === 'bad_parameter' ? 'filter[x]' : undefined;
        expect(body).toEqual({
          code: expect.any(Number),
          message,
          details: [
            {
              '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
              reason: code,
              domain: 'boxyard',
              ...(field || code === 'address_not_allowed' ? { metadata: { field: field ?? 'url' } } : {}),
            },
          ],
        });
      } else if (dialect === 'oauth2') {
        expect(body).toEqual({ error: OAUTH2_ERROR(code, res.status), error_description: message, code });
        expect(res.headers.get('cache-control')).toBe('no-store');
      } else {
        expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
        const twoFactor =
          code === 'two_factor_required'
            ? { two_factor: { default_delivery_method: 'app', delivery_methods: ['app', 'sms'] } }
            : {};
        const stop = dialect === 'agent' && !AGENT_RETRIES.has(code) ? { action: 'stop' } : {};
        expect(body).toEqual({ errors: [message], success: false, code, ...twoFactor, ...stop });
      }
      expect(res.headers.get('retry-after')).toBe(code === 'rate_limited' || code === 'maintenance' ? '7' : null);
      expect(res.headers.get('connection')).toBe(
        code === 'payload_too_large' || code === 'request_timeout' ? 'close' : 'keep-alive',
      );
    });
    it(`${dialect}: address_not_allowed for a host an upstream named is the gateway's 502`, async () => {
      const res = await fetch(`${url}/address_not_allowed`, {
        headers: { 'x-dialect': dialect, 'x-named-by-upstream': '1' },
      });
      expect(res.status).toBe(502);
      expect(errorCodeOf(await res.json())).toBe('address_not_allowed');
    });
  }
});

describe('the JSON:API source of a field', () => {
  it('names a query parameter, a path into the document, a relationship or an attribute', () => {
    expect(jsonapiSource('bad_parameter', 'filter[last-ping-since]')).toEqual({ parameter: 'filter[last-ping-since]' });
    expect(jsonapiSource('validation', 'data.attributes.name')).toEqual({ pointer: '/data/attributes/name' });
    expect(jsonapiSource('validation', 'data.relationships.projects.data.0')).toEqual({
      pointer: '/data/relationships/projects/data/0',
    });
    expect(jsonapiSource('validation', 'relationships.allowed-workspaces')).toEqual({
      pointer: '/data/relationships/allowed-workspaces/data',
    });
    expect(jsonapiSource('validation', 'relationships.project.id')).toEqual({
      pointer: '/data/relationships/project/data/id',
    });
    expect(jsonapiSource('conflict', 'name')).toEqual({ pointer: '/data/attributes/name' });
    expect(jsonapiSource('validation', 'data.attributes.a/b~c')).toEqual({ pointer: '/data/attributes/a~1b~0c' });
    expect(jsonapiSource('validation', undefined)).toBeUndefined();
  });
});

describe('error codes on the wire', () => {
  it("reads the code of either body shape, and nothing from a body that is not the daemon's", () => {
    expect(errorCodeOf({ errors: ['x'], success: false, code: 'not_found' })).toBe('not_found');
    expect(errorCodeOf({ errors: [{ status: '412', code: 'precondition_failed', title: 't' }] })).toBe(
      'precondition_failed',
    );
    expect(errorCodeOf({ errors: ['x'], success: false })).toBeUndefined();
    expect(errorCodeOf({ errors: [{ code: 'no_such_code' }] })).toBeUndefined();
    expect(errorCodeOf('<html>')).toBeUndefined();
    expect(errorCodeOf(null)).toBeUndefined();
    expect(isErrorCode('conflict')).toBe(true);
  });
});
