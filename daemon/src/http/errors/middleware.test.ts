import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { errorMiddleware } from './middleware';
import { ConflictError, ValidationError } from '../../lib/errors';

let server: Server | undefined;
afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

/** A bare app whose only route throws `err`; returns its URL and what was logged. */
async function appThrowing(err: unknown) {
  const logged: Array<Record<string, unknown>> = [];
  const log = pino({ level: 'error' }, { write: (line: string) => { logged.push(JSON.parse(line)); } });
  const app = new Koa();
  app.use(errorMiddleware(log));
  app.use(() => { throw err; });
  server = createServer(app.callback());
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, logged };
}

describe('errorMiddleware', () => {
  it('answers an unknown error 500 with the request id, never its message, and logs it once', async () => {
    const { url, logged } = await appThrowing(new Error('SQLITE_CORRUPT at /secret/path/boxyard.db'));
    const res = await fetch(`${url}/api/v1/box/a/b`, { headers: { 'x-request-id': 'req-42' } });
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(text).not.toContain('secret');
    expect(text).not.toContain('SQLITE');
    expect(JSON.parse(text)).toEqual({ errors: [expect.stringContaining('req-42')], success: false });
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
    app.use(errorMiddleware(pino({ level: 'silent' })));
    app.use((ctx) => { ctx.body = { ok: true }; });
    server = createServer(app.callback());
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    expect((await fetch(url, { headers: { 'x-request-id': 'req-7' } })).headers.get('x-request-id')).toBe('req-7');
    expect((await fetch(url)).headers.get('x-request-id')).toBeNull();
  });


  it('renders JSON:API errors for agent paths and keeps the status table per dialect', async () => {
    const { url } = await appThrowing(new ValidationError('name is required', { source: { pointer: '/data/attributes/name' } }));
    const jsonapi = await fetch(`${url}/api/v2/organizations/x/agent-pools`);
    expect(jsonapi.status).toBe(422);
    expect(jsonapi.headers.get('content-type')).toContain('application/vnd.api+json');
    expect(await jsonapi.json()).toEqual({ errors: [{ status: '422', title: 'invalid attribute', detail: 'name is required', source: { pointer: '/data/attributes/name' } }] });
    const box = await fetch(`${url}/api/v2/box/a/b`);
    expect(box.status).toBe(403);
    expect(await box.json()).toEqual({ errors: ['name is required'], success: false });
  });

  it('answers HEAD errors without a body', async () => {
    const { url } = await appThrowing(new ConflictError('already been released'));
    const res = await fetch(`${url}/org/box`, { method: 'HEAD' });
    expect(res.status).toBe(422);
    expect(await res.text()).toBe('');
  });
});
