import Koa from 'koa';
import Router from '@koa/router';
import type { Deps } from './deps';
import { errorMiddleware, type DialectOf } from './http/errors/middleware';
import type { Dialect } from './http/errors/dialects';
import { requestLog } from './http/request-log';
import { authenticate } from './auth/middleware';
import { setSecurityHeaders } from './http/guards/security-headers';
import { AllowedHosts, hostGuard } from './http/guards/hosts';
import { SessionCookie } from './http/session-cookie';
import { jsonBody } from './http/body';
import { maintenance } from './http/guards/maintenance';
import { requestRateLimit } from './http/guards/rate-limit';
import { health } from './http/health';
import { authRoutes } from './auth/routes';
import { adminRoutes } from './auth/admin-routes';
import { orgAdminRoutes } from './orgs/admin-routes';
import { registryRoutes } from './registry/routes';
import { catalogRoutes } from './registry/catalog/routes';
import { uploadPutRoutes } from './blobs/uploads/routes';
import { uploadApiRoutes } from './registry/providers/upload-routes';
import { downloadRoutes } from './registry/providers/download-routes';
import { mirrorRoutes } from './mirror/routes';
import { importRoutes, isImportPath } from './mirror/import/routes';
import { cacheCatalogRoutes, cacheDownloadRoutes } from './mirror/cache/routes';
import { agentProtocolRoutes, agentsApiRoutes } from './tfc-routes';
import { defaultUiDir, webUi } from './ui/static';
import { sessionRoutes } from './ui/session-routes';
import { namespaceRoutes } from './ui/namespaces-routes';

/** `path` is `prefix` or below it; without regard to case, as @koa/router matches routes. */
function isUnder(path: string, prefix: string): boolean {
  return path.slice(0, prefix.length).toLowerCase() === prefix && (path.length === prefix.length || path[prefix.length] === '/');
}

/** Routers mounted together that answer errors in one dialect (http/errors/dialects.ts). */
interface Speaking { dialect: Dialect; routers: Router[] }
const speaks = (dialect: Dialect, routers: Router[]): Speaking => ({ dialect, routers });

/**
 * All routers of one prefix merged into one, so a request is matched against one route list.
 * `dialectOf` answers the dialect of the group whose route matches a path (whatever its method):
 * asked only when an error is rendered, so answering costs a request nothing.
 */
function merged(groups: Speaking[], prefix?: string): { stack: Koa.Middleware; dialectOf(path: string): Dialect | undefined } {
  const outer = new Router(prefix ? { prefix } : {});
  const routes: Array<{ layer: (typeof outer.stack)[number]; dialect: Dialect }> = [];
  for (const g of groups) {
    for (const r of g.routers) {
      const before = outer.stack.length;
      outer.use(r.routes());
      for (const layer of outer.stack.slice(before)) if (layer.methods.length > 0) routes.push({ layer, dialect: g.dialect });
    }
  }
  const dialectOf = (path: string) => routes.find((x) => x.layer.match(path))?.dialect;
  const stack = outer.routes() as Koa.Middleware;
  if (!prefix) return { stack, dialectOf };
  const allowed = outer.allowedMethods() as Koa.Middleware;
  return { stack: (ctx, next) => stack(ctx, () => allowed(ctx, next)), dialectOf };
}

/**
 * One middleware for every route: a request under a prefix (`/api/v1`…) is matched against that
 * prefix's routers only, then, if none answered, against the root's (box files, uploads, the
 * catalog's `/:org/:box`). Walking a middleware and a route list per router for every request
 * took more time than a cached catalog answer (issue 9).
 *
 * Each group of routers speaks its error dialect; `dialectOf` is the dialect of the route that
 * answers (or would answer, for an error thrown before routing) a request, and for a path no
 * route answers, that of the prefix's first group (the root's outside every prefix).
 */
function routeTable(prefixes: Record<string, Speaking[]>, root: Speaking[], jsonDeadlineMs: number): { routes: Koa.Middleware; dialectOf: DialectOf } {
  const mounts = Object.entries(prefixes).map(([prefix, groups]) => ({ prefix, dialect: groups[0].dialect, ...merged(groups, prefix) }));
  const rootMount = { dialect: root[0].dialect, ...merged(root) };
  const mountOf = (path: string) => (/^\/api\//i.test(path) ? mounts.find((x) => isUnder(path, x.prefix)) : undefined);
  // The APIs speak JSON; the root's upload PUTs are never parsed, nor are imports, whose body is a
  // .box file streamed to the blob store.
  const json = jsonBody(undefined, jsonDeadlineMs);
  const routes: Koa.Middleware = (ctx, next) => {
    const path = ctx.path;
    const m = mountOf(path);
    if (!m) return rootMount.stack(ctx, next);
    const routed = () => m.stack(ctx, () => rootMount.stack(ctx, next));
    return isImportPath(path) ? routed() : json(ctx, routed);
  };
  const dialectOf: DialectOf = (ctx) => {
    const path = ctx.path;
    const m = mountOf(path);
    return m?.dialectOf(path) ?? rootMount.dialectOf(path) ?? m?.dialect ?? rootMount.dialect;
  };
  return { routes, dialectOf };
}

/** Builds the Koa application. Never listens and reads no globals: tests call it directly. */
export function createApp(deps: Deps): Koa {
  const app = new Koa();
  // What reaches Koa's own error event is a client that went away mid-stream (a cut-off upload or
  // download): already handled by the route, so log it quietly instead of Koa's stderr dump.
  app.silent = true;
  app.on('error', (err: unknown) => deps.log.debug({ reason: (err as Error | undefined)?.message }, 'request stream ended early'));
  // At debug level, a line per request (URL and headers scrubbed of credentials by the logger).
  if (deps.log.isLevelEnabled('debug')) app.use(requestLog(deps.log));
  // Order within a prefix matters: uploads before the registry (its `…/provider/:name/:arch` would
  // take `upload` for an architecture); at the root, the pull-through cache before the registry's
  // downloads and catalog it fills, and the catalog's /:org/:box catch-all last. Each group names
  // the dialect its errors are answered in.
  const cookie = new SessionCookie(deps.config);
  const registry = [authRoutes(deps), uploadApiRoutes(deps), registryRoutes(deps)];
  const agentsDeps = { ...deps.agents, config: deps.config };
  const table = routeTable({
    '/api/v1': [speaks('box', registry)],
    // A path no route answers is go-tfe's: JSON:API. The box registry's v2 routes speak Vagrant's.
    '/api/v2': [speaks('jsonapi', agentsApiRoutes(agentsDeps)), speaks('box', registry)],
    '/api/boxyard': [speaks('ui', [sessionRoutes({ tokens: deps.tokens, loginLimiter: deps.loginLimiter, cookie }), namespaceRoutes(deps), adminRoutes(deps), orgAdminRoutes(deps), importRoutes(deps), mirrorRoutes({ ...deps.mirror, orgs: deps.orgs })])],
    '/api/agent': [speaks('agent', agentProtocolRoutes(agentsDeps))],
  }, [speaks('box', [
    uploadPutRoutes(deps),
    cacheDownloadRoutes({ ...deps.mirror, registry: deps.registry, blobs: deps.blobStore, ids: deps.ids, log: deps.log }),
    downloadRoutes(deps),
    cacheCatalogRoutes(deps.mirror),
    catalogRoutes(deps),
  ])], deps.config.jsonBodySeconds * 1000);

  // Security headers first, so that error answers carry them too; then a Host this daemon does not
  // answer to (DNS rebinding) is refused before any route, /healthz and the UI included. Errors
  // are answered in the dialect of the mount the request is for.
  app.use(errorMiddleware(deps.log, table.dialectOf, [setSecurityHeaders, hostGuard(new AllowedHosts(deps.config))]));
  app.use(authenticate(deps.tokens, cookie));
  app.use(health(deps.health));
  // The web UI (/ui/, and / redirects there) goes before any catch-all catalog route such as /:org/:box.
  app.use(webUi(defaultUiDir()));

  app.use(maintenance(deps.settings));
  if (deps.config.requestsPerMinute > 0) app.use(requestRateLimit(deps.config.requestsPerMinute));
  app.use(table.routes);
  return app;
}
