import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webUi } from './static';

async function serveUi(dir: string): Promise<{ url: string; server: Server }> {
  const app = new Koa();
  app.use(webUi(dir));
  app.use((ctx) => {
    ctx.status = 418;
    ctx.body = 'next';
  });
  const server = createServer(app.callback());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** fetch() normalizes `..` and `%2e%2e` away before sending; a hostile client does not, so send the path raw. */
function rawGet(base: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolvePromise, reject) => {
    const req = request(`${base}/`, { path, method: 'GET' }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => {
        body += c.toString();
      });
      res.on('end', () => resolvePromise({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('webUi', () => {
  let dir: string;
  let built: { url: string; server: Server };
  let empty: { url: string; server: Server };
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'boxyard-ui-'));
    mkdirSync(join(dir, 'dist', 'assets'), { recursive: true });
    writeFileSync(join(dir, 'dist', 'index.html'), '<!doctype html><title>ui</title>');
    writeFileSync(join(dir, 'dist', 'assets', 'app-1a2b.js'), 'console.log(1)');
    writeFileSync(join(dir, 'secret.txt'), 'outside');
    built = await serveUi(join(dir, 'dist'));
    empty = await serveUi(join(dir, 'missing'));
  });
  afterAll(() => {
    built.server.close();
    empty.server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('redirects / and /ui to /ui/', async () => {
    for (const p of ['/', '/ui']) {
      const r = await fetch(built.url + p, { redirect: 'manual' });
      expect(r.status).toBe(302);
      expect(r.headers.get('location')).toBe('/ui/');
    }
  });

  it('serves files with their content type and caches hashed assets', async () => {
    const r = await fetch(`${built.url}/ui/assets/app-1a2b.js`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(r.headers.get('cache-control')).toContain('immutable');
    expect(await r.text()).toBe('console.log(1)');
  });

  it('answers index.html for client routes and 404 for missing assets', async () => {
    const route = await fetch(`${built.url}/ui/boxes/admin/base`);
    expect(route.status).toBe(200);
    expect(route.headers.get('content-type')).toMatch(/^text\/html/);
    expect(route.headers.get('cache-control')).toBe('no-cache');
    expect(await route.text()).toContain('<title>ui</title>');
    expect((await fetch(`${built.url}/ui/assets/gone.js`)).status).toBe(404);
    expect((await fetch(`${built.url}/ui/favicon-gone.ico`)).status).toBe(404);
  });

  it('answers index.html for a route to a box whose name holds a dot (reload, bookmark, shared link)', async () => {
    for (const p of ['/ui/boxes/admin/ubuntu-24.04', '/ui/boxes/admin/base.box', '/ui/boxes/admin/app.js']) {
      const r = await fetch(`${built.url}${p}`);
      expect(r.status, p).toBe(200);
      expect(r.headers.get('content-type'), p).toMatch(/^text\/html/);
      expect(await r.text(), p).toContain('<title>ui</title>');
    }
  });

  it('rejects traversal, plain and encoded', async () => {
    for (const p of ['/ui/../secret.txt', '/ui/%2e%2e/secret.txt', '/ui/assets/..%2f..%2fsecret.txt', '/ui/%E0%A4%A']) {
      const r = await rawGet(built.url, p);
      expect(r.status, p).toBe(400);
      expect(r.body).not.toContain('outside');
    }
  });

  it('leaves other paths and methods alone or refuses them', async () => {
    expect((await fetch(`${built.url}/api/v1/search`)).status).toBe(418);
    expect((await fetch(`${built.url}/ui/x`, { method: 'POST' })).status).toBe(405);
  });

  it('says clearly when the UI has not been built', async () => {
    const r = await fetch(`${empty.url}/ui/`);
    expect(r.status).toBe(503);
    expect(await r.text()).toContain('npm run build:ui');
  });
});
