import Koa from 'koa';
import type { Deps } from './deps';
import { errorMiddleware } from './http/errors/middleware';
import { routeTable, speaks } from './http/mounts';
import { isUploadTargetPath } from './http/route-table';
import { servicePrincipalRoutes } from './orgs/service-principal-routes';
import { oauth2TokenRoutes } from './auth/service-principals/token-routes';
import { requestLog } from './http/request-log';
import { authenticate, carriesCredential } from './auth/middleware';
import { setSecurityHeaders } from './http/guards/security-headers';
import { AllowedHosts, hostGuard } from './http/guards/hosts';
import { SessionCookie } from './http/session-cookie';
import { httpsGuard } from './http/guards/https';
import { closeIfBodyUnread } from './http/guards/connection-guard';
import { acmeChallenges, caRoutes, publicCaRoutes } from './tls/routes';
import { agentProgramRoute } from './agents/program-route';
import { maintenance } from './http/guards/maintenance';
import { requestRateLimit } from './http/guards/rate-limit';
import { health } from './http/health';
import { authRoutes } from './auth/routes';
import { adminRoutes } from './auth/admin-routes';
import { orgAdminRoutes } from './orgs/admin-routes';
import { poolCountsRoutes } from './pools/counts-routes';
import { registryRoutes } from './registry/routes';
import { catalogRoutes } from './registry/catalog/routes';
import { uploadPutRoutes } from './blobs/uploads/routes';
import { uploadApiRoutes } from './registry/providers/upload-routes';
import { downloadRoutes } from './registry/providers/download-routes';
import { mirrorRoutes } from './mirror/routes';
import { importRoutes, isImportPath } from './mirror/import/routes';
import { cacheCatalogRoutes, cacheDownloadRoutes } from './mirror/cache/routes';
import { agentProtocolRoutes, agentsApiRoutes } from './tfc-routes';
import { defaultUiDir, uiPage, webUi } from './ui/static';
import { sessionRoutes } from './ui/session-routes';
import { overviewRoutes } from './data/overview-routes';
import { boxListRoutes } from './ui/box-list-routes';
import { statsRoutes } from './registry/stats-routes';
import { metricsRoute } from './data/metrics-routes';
import { hcpRegistryRoutes } from './registry/hcp/routes';
import { hcpOperationRoutes } from './registry/hcp/operation-routes';

/** Builds the Koa application. Never listens and reads no globals: tests call it directly. */
export function createApp(deps: Deps): Koa {
  const app = new Koa();
  // What reaches Koa's own error event is a client that went away mid-stream (a cut-off upload or
  // download): already handled by the route, so log it quietly instead of Koa's stderr dump.
  app.silent = true;
  // Behind a proxy, ctx.ip is the address it appended to X-Forwarded-For (one hop: a client's own
  // X-Forwarded-For entries are not believed).
  app.proxy = deps.config.trustProxy;
  app.maxIpsCount = 1;
  app.on('error', (err: unknown) =>
    deps.log.debug({ reason: (err as Error | undefined)?.message }, 'request stream ended early'),
  );
  // At debug level, a line per request (URL and headers scrubbed of credentials by the logger).
  if (deps.log.isLevelEnabled('debug')) app.use(requestLog(deps.log));
  // An answer sent before its request body is all in closes the connection (slowloris).
  app.use(closeIfBodyUnread);
  // Order within a prefix matters: uploads before the registry (its `…/provider/:name/:arch` would
  // take `upload` for an architecture); at the root, the pull-through cache before the registry's
  // downloads and catalog it fills, and the catalog's /:org/:box catch-all last. Each group names
  // the dialect its errors are answered in.
  const cookie = new SessionCookie(deps.config);
  // The web UI, at /ui/ and as the page a browser gets at a box's catalog URL.
  const uiDir = defaultUiDir();
  const registry = [authRoutes(deps), uploadApiRoutes(deps), registryRoutes(deps)];
  const agentsDeps = { ...deps.agents, config: deps.config };
  const table = routeTable(
    {
      '/api/v1': [speaks('box', registry)],
      // A path no route answers is go-tfe's: JSON:API. The box registry's v2 routes speak Vagrant's.
      '/api/v2': [speaks('jsonapi', agentsApiRoutes(agentsDeps)), speaks('box', registry)],
      '/api/boxyard': [
        speaks('ui', [
          sessionRoutes({ tokens: deps.tokens, loginLimiter: deps.loginLimiter, cookie }),
          overviewRoutes(deps.overview),
          publicCaRoutes(deps.tls),
          boxListRoutes(deps),
          statsRoutes(deps),
          adminRoutes(deps),
          orgAdminRoutes(deps),
          servicePrincipalRoutes(deps),
          poolCountsRoutes(deps.agents),
          importRoutes(deps),
          mirrorRoutes({ ...deps.mirror, orgs: deps.orgs }),
        ]),
      ],
      '/api/agent': [speaks('agent', agentProtocolRoutes(agentsDeps))],
      // HCP's APIs, as Packer's vagrant-registry calls them: the same boxes as the Vagrant Cloud API.
      '/vagrant/2022-09-30': [speaks('hcp', [hcpRegistryRoutes(deps)])],
      '/operation/2020-05-05': [speaks('hcp', [hcpOperationRoutes(deps)])],
    },
    [
      // Before the catalog's /:org/:box, which /oauth2/token would match.
      speaks('oauth2', [oauth2TokenRoutes(deps)]),
      speaks('box', [
        uploadPutRoutes(deps),
        cacheDownloadRoutes({
          ...deps.mirror,
          registry: deps.registry,
          blobs: deps.blobStore,
          ids: deps.ids,
          log: deps.log,
        }),
        downloadRoutes(deps),
        cacheCatalogRoutes(deps.mirror),
        catalogRoutes({ ...deps, uiPage: uiPage(uiDir) }),
      ]),
    ],
    {
      jsonDeadlineMs: deps.config.jsonBodySeconds * 1000,
      rawBody: (path) => isImportPath(path) || isUploadTargetPath(path),
    },
  );

  // Security headers first, so that error answers carry them too; then a Host this daemon does not
  // answer to (DNS rebinding) is refused before any route, /healthz and the UI included. Errors
  // are answered in the dialect of the mount the request is for.
  // With HTTPS on, a plain-HTTP request is answered there too (http/guards/https.ts), before authentication.
  const https = deps.tls
    ? [
        httpsGuard({
          httpsPort: () => deps.listening.port,
          publicUrl: deps.config.publicUrl,
          hsts: deps.tls.publicTrust,
          carriesCredential: (ctx) => carriesCredential(ctx, cookie),
        }),
      ]
    : [];
  // Every request counted by route template once answered (GET /metrics: data/metrics-routes.ts).
  if (deps.metrics) app.use(deps.metrics.middleware());
  if (deps.tls?.challenge) app.use(acmeChallenges(deps.tls));
  app.use(
    errorMiddleware(deps.log, table.dialectOf, [
      setSecurityHeaders,
      hostGuard(new AllowedHosts(deps.config)),
      ...https,
    ]),
  );
  // Before authentication: the scrape token is not a user's token.
  if (deps.metrics) app.use(metricsRoute(deps.metrics, deps.config.metricsToken));
  app.use(authenticate(deps.tokens, cookie));
  app.use(health(deps.health, deps.lifecycle, deps.leadership));
  app.use(caRoutes(deps.tls));
  app.use(agentProgramRoute());
  // The web UI (/ui/, and / redirects there) goes before any catch-all catalog route such as /:org/:box.
  app.use(webUi(uiDir));

  app.use(maintenance(deps.settings));
  if (deps.config.requestsPerMinute > 0) app.use(requestRateLimit(deps.config.requestsPerMinute, deps.limiters));
  app.use(table.routes);
  return app;
}
