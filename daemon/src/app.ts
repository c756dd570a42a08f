import Koa from 'koa';
import Router from '@koa/router';
import type { Deps } from './deps';
import { errorMiddleware } from './http/errors/middleware';
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

/** All routers of one prefix merged into one, so a request is matched against one route list. */
function merged(routers: Router[], prefix?: string): Koa.Middleware {
  const outer = new Router(prefix ? { prefix } : {});
  for (const r of routers) outer.use(r.routes());
  const routes = outer.routes() as Koa.Middleware;
  if (!prefix) return routes;
  const allowed = outer.allowedMethods() as Koa.Middleware;
  return (ctx, next) => routes(ctx, () => allowed(ctx, next));
}

/**
 * One middleware for every route: a request under a prefix (`/api/v1`…) is matched against that
 * prefix's routers only, then, if none answered, against the root's (box files, uploads, the
 * catalog's `/:org/:box`). Walking a middleware and a route list per router for every request
 * took more time than a cached catalog answer (issue 9).
 */
function routeTable(prefixes: Record<string, Router[]>, root: Router[], jsonDeadlineMs: number): Koa.Middleware {
  const mounts = Object.entries(prefixes).map(([prefix, routers]) => ({ prefix, stack: merged(routers, prefix) }));
  const rootStack = merged(root);
  // The APIs speak JSON; the root's upload PUTs are never parsed, nor are imports, whose body is a
  // .box file streamed to the blob store.
  const json = jsonBody(undefined, jsonDeadlineMs);
  return (ctx, next) => {
    const path = ctx.path;
    const m = /^\/api\//i.test(path) ? mounts.find((x) => isUnder(path, x.prefix)) : undefined;
    if (!m) return rootStack(ctx, next);
    const routed = () => m.stack(ctx, () => rootStack(ctx, next));
    return isImportPath(path) ? routed() : json(ctx, routed);
  };
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
  // Security headers first, so that error answers carry them too; then a Host this daemon does not
  // answer to (DNS rebinding) is refused before any route, /healthz and the UI included.
  app.use(errorMiddleware(deps.log, [setSecurityHeaders, hostGuard(new AllowedHosts(deps.config))]));
  const cookie = new SessionCookie(deps.config);
  app.use(authenticate(deps.tokens, cookie));
  app.use(health(deps.health));
  // The web UI (/ui/, and / redirects there) goes before any catch-all catalog route such as /:org/:box.
  app.use(webUi(defaultUiDir()));

  app.use(maintenance(deps.settings));
  if (deps.config.requestsPerMinute > 0) app.use(requestRateLimit(deps.config.requestsPerMinute));

  // Order within a prefix matters: uploads before the registry (its `…/provider/:name/:arch` would
  // take `upload` for an architecture); at the root, the pull-through cache before the registry's
  // downloads and catalog it fills, and the catalog's /:org/:box catch-all last.
  const registry = [authRoutes(deps), uploadApiRoutes(deps), registryRoutes(deps)];
  const agentsDeps = { ...deps.agents, config: deps.config };
  app.use(routeTable({
    '/api/v1': registry,
    '/api/v2': [...registry, ...agentsApiRoutes(agentsDeps)],
    '/api/boxyard': [sessionRoutes({ tokens: deps.tokens, loginLimiter: deps.loginLimiter, cookie }), namespaceRoutes(deps), adminRoutes(deps), orgAdminRoutes(deps), importRoutes(deps), mirrorRoutes({ ...deps.mirror, orgs: deps.orgs })],
    '/api/agent': agentProtocolRoutes(agentsDeps),
  }, [
    uploadPutRoutes(deps),
    cacheDownloadRoutes({ ...deps.mirror, registry: deps.registry, blobs: deps.blobStore, ids: deps.ids, log: deps.log }),
    downloadRoutes(deps),
    cacheCatalogRoutes(deps.mirror),
    catalogRoutes(deps),
  ], deps.config.jsonBodySeconds * 1000));
  return app;
}
