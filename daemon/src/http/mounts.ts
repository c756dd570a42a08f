import type Koa from 'koa';
import Router from '@koa/router';
import { jsonBody } from './body';
import type { Dialect } from './errors/dialects';
import type { DialectOf } from './errors/middleware';

/**
 * The mounts: each prefix (`MOUNTS` in route-table.ts) with its groups of routers, each group
 * speaking one error dialect. app.ts lists them; docs/ARCHITECTURE.md, "A request's way".
 */
export interface MountOptions {
  /** How long a JSON body may take to arrive. */
  jsonDeadlineMs: number;
  /** Paths under a prefix whose body is streamed by the route, never parsed as JSON (imports). */
  rawBody(path: string): boolean;
}

/** `path` is `prefix` or below it; without regard to case, as @koa/router matches routes. */
function isUnder(path: string, prefix: string): boolean {
  return (
    path.slice(0, prefix.length).toLowerCase() === prefix &&
    (path.length === prefix.length || path[prefix.length] === '/')
  );
}

/** The first path segment below `prefix`, lower-cased as the router matches. */
const firstSegment = (path: string, prefix = '') => {
  // Every request asks this, a few times: no array of every segment.
  const from = prefix.length + 1;
  if (path[prefix.length] !== '/') return '';
  const end = path.indexOf('/', from);
  return path.slice(from, end === -1 ? undefined : end).toLowerCase();
};

/** Routers mounted together that answer errors in one dialect (http/errors/dialects.ts). */
interface Speaking {
  dialect: Dialect;
  routers: Router[];
}
export const speaks = (dialect: Dialect, routers: Router[]): Speaking => ({ dialect, routers });

/**
 * All routers of one prefix merged into one, so a request is matched against one route list. The
 * dialect lookups are asked only when an error is rendered, so they cost a request nothing.
 */
interface Merged {
  stack: Koa.Middleware;
  /** The dialect of the route that matches the path (whatever its method). */
  matched(path: string): Dialect | undefined;
  /** The dialect of the routes that share the path's first segment. */
  near(path: string): Dialect | undefined;
}

function merged(groups: Speaking[], prefix?: string): Merged {
  const outer = new Router(prefix ? { prefix } : {});
  const routes: Array<{ layer: Layer; dialect: Dialect }> = [];
  for (const g of groups) {
    for (const r of g.routers) {
      const before = outer.stack.length;
      outer.use(r.routes());
      for (const layer of outer.stack.slice(before))
        if (layer.methods.length > 0) routes.push({ layer, dialect: g.dialect });
    }
  }
  // A path no route answers speaks as the routes that share its first segment (`/api/v2/box/…`
  // is the registry's, `/api/v2/organizations/…` go-tfe's): taken from the routes, not a list.
  const bySegment = new Map<string, Dialect>();
  for (const { layer, dialect } of routes) {
    const seg = literalSegment(layer, prefix);
    if (seg !== undefined && !bySegment.has(seg)) bySegment.set(seg, dialect);
  }
  const matched = (path: string) => routes.find((x) => x.layer.match(path))?.dialect;
  const near = (path: string) => bySegment.get(firstSegment(path, prefix));
  const dispatch = segmentRouters(outer, prefix);
  const stack: Koa.Middleware = (ctx, next) => (dispatch(ctx.path) as Koa.Middleware)(ctx, next);
  if (!prefix) return { stack, matched, near };
  const allowed = outer.allowedMethods() as Koa.Middleware;
  return { stack: (ctx, next) => stack(ctx, () => allowed(ctx, next)), matched, near };
}

/** A template's first segment that is plain text: no parameter, group, wildcard or pattern in it. */
const LITERAL = /^[\w.~-]*$/;

type Layer = Router['stack'][number];

/**
 * A route's first path segment below the prefix when it is plain text, lower-cased; undefined
 * when the route may match any segment: middleware (no methods), a pattern, a parameter, or a
 * template that goes on from the prefix without a slash (`{*rest}`).
 */
function literalSegment(layer: Layer, prefix?: string): string | undefined {
  if (layer.methods.length === 0 || typeof layer.path !== 'string') return undefined;
  const below = layer.path.slice(prefix?.length ?? 0);
  if (below !== '' && !below.startsWith('/')) return undefined;
  const seg = firstSegment(below);
  return LITERAL.test(seg) ? seg : undefined;
}

/**
 * The routes of `outer` split by the first path segment below the prefix: a request is matched
 * against the routes of its segment and those whose first segment is a parameter (or a pattern),
 * in their registered order, which are all the routes that can match it. @koa/router tests every
 * route of a router against every request: the /api/v2 mount has about a hundred, and testing
 * them was the largest part of the router's time in a pool list (bench/'s `api` rows).
 */
export function segmentRouters(outer: Router, prefix?: string): (path: string) => ReturnType<Router['routes']> {
  const segmentOf = (layer: Layer) => literalSegment(layer, prefix);
  const routerOf = (keep: (seg: string | undefined) => boolean) => {
    const r = new Router();
    r.stack.push(...outer.stack.filter((layer) => keep(segmentOf(layer))));
    return r.routes();
  };
  const literals = new Set(outer.stack.map(segmentOf).filter((seg) => seg !== undefined));
  const bySeg = new Map([...literals].map((lit) => [lit, routerOf((seg) => seg === undefined || seg === lit)]));
  const others = routerOf((seg) => seg === undefined);
  return (path) => bySeg.get(firstSegment(path, prefix)) ?? others;
}

/**
 * One middleware for every route: a request under a prefix (`/api/v1`…) is matched against that
 * prefix's routers only, then, if none answered, against the root's (box files, uploads, the
 * catalog's `/:org/:box`). Walking a middleware and a route list per router for every request
 * took more time than a cached catalog answer (bench/'s `api` rows).
 *
 * Each group of routers speaks its error dialect; `dialectOf` is the dialect of the route that
 * answers (or would answer, for an error thrown before routing) a request, and for a path no
 * route answers, that of the group whose routes share its first segment, else the prefix's first
 * group (outside every prefix, the root's last group).
 */
export function routeTable(
  prefixes: Record<string, Speaking[]>,
  root: Speaking[],
  opts: MountOptions,
): { routes: Koa.Middleware; dialectOf: DialectOf } {
  const mounts = Object.entries(prefixes).map(([prefix, groups]) => ({
    prefix,
    dialect: groups[0].dialect,
    ...merged(groups, prefix),
  }));
  // Outside every prefix, a path no route answers is the catch-all's (the catalog's /:org/:box): the last group.
  const rootMount = { dialect: root[root.length - 1].dialect, ...merged(root) };
  // One test of the prefixes' first segments (`api`, `vagrant`, `operation`) before any prefix is compared: most
  // requests (the catalog, downloads) are under none.
  const heads = [...new Set(mounts.map((x) => firstSegment(x.prefix)))].map((h) => h.replace(/[^\w-]/g, '\\$&'));
  const underAny = new RegExp(`^/(?:${heads.join('|')})/`, 'i');
  const mountOf = (path: string) => (underAny.test(path) ? mounts.find((x) => isUnder(path, x.prefix)) : undefined);
  // The APIs speak JSON; the root's upload PUTs are never parsed, nor are imports, whose body is a
  // .box file streamed to the blob store.
  const json = jsonBody(undefined, opts.jsonDeadlineMs);
  const routes: Koa.Middleware = (ctx, next) => {
    const path = ctx.path;
    const m = mountOf(path);
    if (!m) return rootMount.stack(ctx, next);
    const routed = () => m.stack(ctx, () => rootMount.stack(ctx, next));
    return opts.rawBody(path) ? routed() : json(ctx, routed);
  };
  const dialectOf: DialectOf = (ctx) => {
    const path = ctx.path;
    const m = mountOf(path);
    // A route's own dialect first (the root's catalog answers under /api/v2 too), then the mount's.
    const matched = m?.matched(path) ?? rootMount.matched(path);
    if (matched) return matched;
    return m ? (m.near(path) ?? m.dialect) : (rootMount.near(path) ?? rootMount.dialect);
  };
  return { routes, dialectOf };
}
