import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import Router from '@koa/router';
import { afterEach, describe, expect, it } from 'vitest';
import { routeTable, segmentRouters, speaks } from './mounts';
import { AGENT, BOX, BOXYARD, MOUNTS, ROOT, TFC, type Route } from './route-table';
import { present } from '../lib/invariant';

let server: Server | undefined;
afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

/** Each route answers its name (and params), so a test sees which route took a request. */
function named(r: Router, method: 'get' | 'post', path: string, name: string, pass = false): void {
  r[method](path, (ctx, next) => {
    if (pass) {
      ctx.set('x-passed', name);
      return next();
    }
    ctx.body = { route: name, params: ctx.params };
  });
}

async function serve(): Promise<string> {
  const api = new Router();
  // A route whose first segment is a parameter, registered before literal ones: it must still be
  // tried first for a request under a literal segment, as one router tries its routes in order.
  named(api, 'get', '/:any/first', 'param-first', true);
  named(api, 'get', '/organizations/:org', 'org');
  named(api, 'post', '/organizations/:org', 'org-post');
  named(api, 'get', '/organizations/:org/pools', 'pools');
  named(api, 'get', '/:name/fallback', 'param-fallback');
  named(api, 'get', '/box/:user/:name', 'box');
  const root = new Router();
  named(root, 'get', '/:org/:box', 'catalog');
  const table = routeTable({ '/api/v2': [speaks('jsonapi', [api])] }, [speaks('box', [root])], {
    jsonDeadlineMs: 1000,
    rawBody: () => false,
  });
  const app = new Koa();
  app.use(table.routes);
  const listening = createServer(app.callback());
  server = listening;
  await new Promise<void>((r) => listening.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
}

async function get(
  url: string,
  init?: RequestInit,
): Promise<{ status: number; body: unknown; passed: string | null; allow: string | null }> {
  const res = await fetch(url, init);
  const text = await res.text();
  return {
    status: res.status,
    body: text.startsWith('{') ? JSON.parse(text) : text,
    passed: res.headers.get('x-passed'),
    allow: res.headers.get('allow'),
  };
}

describe('routeTable', () => {
  it("matches a request against its first segment's routes and those starting with a parameter, in order", async () => {
    const url = await serve();
    expect(await get(`${url}/api/v2/organizations/acme`)).toMatchObject({
      status: 200,
      body: { route: 'org', params: { org: 'acme' } },
    });
    expect(await get(`${url}/api/v2/organizations/acme/pools`)).toMatchObject({
      status: 200,
      body: { route: 'pools' },
    });
    expect(await get(`${url}/api/v2/box/alice/web`)).toMatchObject({
      status: 200,
      body: { route: 'box', params: { user: 'alice', name: 'web' } },
    });
    // A segment no literal route has: only the parameter routes.
    expect(await get(`${url}/api/v2/anything/fallback`)).toMatchObject({
      status: 200,
      body: { route: 'param-fallback', params: { name: 'anything' } },
    });
    // The parameter route registered first runs first, also under a literal segment.
    expect(await get(`${url}/api/v2/organizations/first`)).toMatchObject({
      status: 200,
      passed: 'param-first',
      body: { route: 'org', params: { org: 'first' } },
    });
  });

  it('matches segments without regard to case, as the router does, and keeps parameters as sent', async () => {
    const url = await serve();
    expect(await get(`${url}/api/v2/Organizations/AcMe`)).toMatchObject({
      status: 200,
      body: { route: 'org', params: { org: 'AcMe' } },
    });
  });

  it('answers 405 with Allow for a method the path has no route for, and falls through to the root', async () => {
    const url = await serve();
    expect(await get(`${url}/api/v2/organizations/acme/pools`, { method: 'POST' })).toMatchObject({
      status: 405,
      allow: 'HEAD, GET',
    });
    expect(await get(`${url}/api/v2/organizations/acme`, { method: 'POST' })).toMatchObject({
      status: 200,
      body: { route: 'org-post' },
    });
    // Nothing under /api/v2 answers: the root's routes do (the catalog's /:org/:box).
    expect(await get(`${url}/api/v2`)).toMatchObject({
      status: 200,
      body: { route: 'catalog', params: { org: 'api', box: 'v2' } },
    });
    expect(await get(`${url}/acme/web`)).toMatchObject({ status: 200, body: { route: 'catalog' } });
    expect((await get(`${url}/api/v2/nothing/here/at/all`)).status).toBe(404);
  });
});

describe('segmentRouters', () => {
  // Every template of the route table under the mounts it is served at, plus what the table has
  // none of today: router middleware, and templates that go on from the prefix without a slash.
  const mounted: Array<[string, Record<string, Route>[]]> = [
    [MOUNTS.v1, [BOX]],
    [MOUNTS.v2, [BOX, TFC]],
    [MOUNTS.boxyard, [BOXYARD]],
    [MOUNTS.agent, [AGENT]],
    [MOUNTS.root, [ROOT]],
  ];
  const noop = () => undefined;
  const values = ['x', 'box', 'Organizations', 'UPLOAD', 'a.b', '%2F', 'v2'];
  const methods = ['GET', 'HEAD', 'POST', 'DELETE', 'OPTIONS'];

  it.each(mounted)(
    'tries, for every path, the same layers in the same order as one router of the mount (%s)',
    (prefix, groups) => {
      const inner = new Router();
      const templates = groups.flatMap((g) => Object.values(g).map((r) => r.path));
      inner.use(noop);
      for (const t of templates) inner.all(t, noop);
      inner.get('{*rest}', noop);
      const outer = new Router(prefix ? { prefix } : {});
      outer.use(inner.routes());
      const routerFor = segmentRouters(outer, prefix || undefined);
      let compared = 0;
      for (const t of [...templates, '/unknown/x']) {
        for (const v of values) {
          const path = `${prefix}${t.replace(/:\w+/g, v)}`;
          for (const p of [path, `${path}/`, path.toUpperCase()]) {
            for (const m of methods) {
              const want = outer.match(p, m);
              const got = present(routerFor(p).router, 'routes() carries its router').match(p, m);
              expect(got.path, `${m} ${p}`).toEqual(want.path);
              expect(got.pathAndMethod, `${m} ${p}`).toEqual(want.pathAndMethod);
              expect(got.route, `${m} ${p}`).toBe(want.route);
              compared++;
            }
          }
        }
      }
      expect(compared).toBeGreaterThan(100);
    },
  );
});
