import Koa from 'koa';
import Router from '@koa/router';
import type { Deps } from './deps';
import { errorMiddleware } from './http/error-middleware';
import { authenticate } from './http/auth';
import { jsonBody } from './http/body';
import { maintenance } from './http/maintenance';
import { requestRateLimit } from './http/rate-limit';
import { requestId } from './http/request-id';
import { authRoutes } from './auth/routes';
import { adminRoutes } from './auth/admin-routes';
import { registryRoutes } from './registry/routes';
import { catalogRoutes } from './registry/catalog-routes';
import { uploadApiRoutes, uploadPutRoutes } from './blobs/upload-routes';
import { downloadRoutes } from './blobs/download-routes';
import { mirrorRoutes } from './mirror/routes';
import { importRoutes, isImportPath } from './mirror/import-routes';
import { cacheCatalogRoutes, cacheDownloadRoutes } from './mirror/cache-routes';
import { agentProtocolRoutes, agentsApiRoutes } from './agents/routes';
import { VERSION } from './version';
import { defaultUiDir, webUi } from './ui/static';

/** `path` is `prefix` or below it; without regard to case, as @koa/router matches routes. */
function isUnder(path: string, prefix: string): boolean {
  return path.slice(0, prefix.length).toLowerCase() === prefix && (path.length === prefix.length || path[prefix.length] === '/');
}

/**
 * Mounts routers under each prefix. A request outside the prefix skips them at once: matching
 * every route of every router took more time than a catalog request's queries (issue 9).
 */
function mount(app: Koa, prefixes: string[], ...routers: Router[]) {
  for (const prefix of prefixes) {
    const outer = new Router({ prefix });
    for (const r of routers) outer.use(r.routes(), r.allowedMethods());
    const routes = outer.routes() as Koa.Middleware;
    const allowed = outer.allowedMethods() as Koa.Middleware;
    app.use((ctx, next) => (isUnder(ctx.path, prefix) ? routes(ctx, () => allowed(ctx, next)) : next()));
  }
}

/** Builds the Koa application. Never listens and reads no globals: tests call it directly. */
export function createApp(deps: Deps): Koa {
  const app = new Koa();
  // What reaches Koa's own error event is a client that went away mid-stream (a cut-off upload or
  // download): already handled by the route, so log it quietly instead of Koa's stderr dump.
  app.silent = true;
  app.on('error', (err: unknown) => deps.log.debug({ err }, 'request stream ended early'));
  app.use(requestId());
  app.use(errorMiddleware(deps.log));
  app.use(authenticate(deps.tokens));

  const health = new Router();
  health.get('/healthz', (ctx) => { ctx.body = { status: 'ok', name: 'boxyard', version: VERSION }; });
  // Terraform's service discovery (the tfe provider and `terraform login` read it, over HTTPS, so
  // it matters behind a TLS proxy): the agent-pools API is HCP Terraform's /api/v2.
  health.get('/.well-known/terraform.json', (ctx) => { ctx.body = { 'tfe.v2': '/api/v2/', 'tfe.v2.1': '/api/v2/', 'tfe.v2.2': '/api/v2/' }; });
  app.use(health.routes());
  // The web UI (/ui/, and / redirects there) goes before any catch-all catalog route such as /:org/:box.
  app.use(webUi(defaultUiDir()));

  app.use(maintenance(deps.settings));
  app.use(requestRateLimit(deps.config.requestsPerMinute));

  // Everything under /api speaks JSON; upload PUTs live outside /api and are never parsed, nor
  // are imports, whose body is a .box file streamed to the blob store.
  const json = jsonBody();
  app.use((ctx, next) => (ctx.path.startsWith('/api/') && !isImportPath(ctx.path) ? json(ctx, next) : next()));

  mount(app, ['/api/v1', '/api/v2'], authRoutes(deps));
  mount(app, ['/api/boxyard'], adminRoutes(deps));
  mount(app, ['/api/boxyard'], importRoutes(deps));
  mount(app, ['/api/boxyard'], mirrorRoutes({ ...deps.mirror, accounts: deps.accounts }));
  // Before the registry: its `…/provider/:name/:arch` would take `upload` for an architecture.
  mount(app, ['/api/v1', '/api/v2'], uploadApiRoutes(deps));
  mount(app, ['/api/v1', '/api/v2'], registryRoutes(deps));
  // Upload PUTs and box downloads, before the catalog's /:org/:box catch-all.
  app.use(uploadPutRoutes(deps).routes());
  // The pull-through cache fetches files on demand, then hands over to the registry.
  app.use(cacheDownloadRoutes({ ...deps.mirror, registry: deps.registry, blobs: deps.blobStore, ids: deps.ids, log: deps.log }).routes());
  app.use(downloadRoutes(deps).routes());
  mount(app, ['/api/v2'], ...agentsApiRoutes({ ...deps.agents, config: deps.config }));
  mount(app, ['/api/agent'], ...agentProtocolRoutes({ ...deps.agents, config: deps.config }));
  // Last: the catalog's /:org/:box matches any two-segment path. The cache fills it first.
  app.use(cacheCatalogRoutes(deps.mirror).routes());
  app.use(catalogRoutes(deps).routes());
  return app;
}
