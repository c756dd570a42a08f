import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import type { Config } from './config';
import { buildDeps, type Deps, type DepsOptions } from './deps';
import { createApp } from './app';
import { watchdogIntervalMs } from './agents/services';

export interface RunningDaemon {
  url: string;
  server: Server;
  deps: Deps;
  /** Set when this start created the administrator with a generated password. */
  generatedAdminPassword?: string;
  close(): Promise<void>;
}

/** config → database → migrations → app → listen. Prints nothing: callers decide. */
export async function startDaemon(config: Config, opts: DepsOptions = {}): Promise<RunningDaemon> {
  const deps = buildDeps(config, opts);
  const admin = await deps.accounts.ensureAdmin(config.adminUsername, config.adminPassword);
  const sealed = await deps.twoFactor.sealStoredSecrets();
  if (sealed > 0) deps.log.info({ users: sealed }, 'encrypted stored TOTP secrets with secret.key');
  // Background work runs in the daemon only, not in CLI commands that open the same data folder.
  deps.onClose(await deps.blobCollector.start());
  if (config.upstream) {
    const upstream = await deps.mirror.upstreams.ensureSystem(config.upstream, config.upstreamToken);
    await deps.settings.update({ pull_through_upstream_id: upstream.id });
  }
  deps.onClose(await deps.mirror.runner.start());
  deps.onClose(deps.agents.watchdog.start(watchdogIntervalMs(config), (err) => deps.log.error({ err }, 'agent watchdog tick failed')));
  const app = createApp(deps);
  const server = createServer(app.callback());
  // `Expect: 100-continue`: upload PUTs send "100 Continue" themselves once the upload URL checks
  // out (blobs/upload-routes.ts), so a stale URL is refused before the client sends gigabytes.
  server.on('checkContinue', (req, res) => {
    if (!req.url?.startsWith('/uploads/')) res.writeContinue();
    server.emit('request', req, res);
  });
  // Multi-gigabyte uploads and downloads: no whole-request timeout, only an idle one.
  server.requestTimeout = 0;
  server.headersTimeout = 60_000;
  // Idle connections stay open past an agent's ping interval: agents (fetch honours the server's
  // `Keep-Alive: timeout=` hint) then report on the connection they have instead of opening a new
  // one every ping, which was most of a report's cost with 1,000 agents (issue 9).
  server.keepAliveTimeout = Math.max(65_000, (config.agentPingSeconds + 5) * 1000);
  server.setTimeout(10 * 60_000);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host === '0.0.0.0' ? '127.0.0.1' : config.host;
  return {
    url: `http://${host}:${port}`,
    server,
    deps,
    generatedAdminPassword: admin.generatedPassword,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await deps.close();
    },
  };
}

/** `boxyard serve`: starts, prints the URL (and a generated admin password once), stops on signals. */
export async function serve(config: Config): Promise<void> {
  const d = await startDaemon(config);
  if (d.generatedAdminPassword) {
    process.stdout.write(`Created administrator "${config.adminUsername}" with password: ${d.generatedAdminPassword}\n(shown once; change it with: boxyard user password ${config.adminUsername})\n`);
  }
  process.stdout.write(`Boxyard listening on ${d.url} (data: ${config.dataDir})\n`);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    d.deps.log.info({ signal }, 'stopping');
    await d.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}
