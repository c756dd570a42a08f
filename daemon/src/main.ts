import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createServer as createNetServer, type Server as NetServer } from 'node:net';
import { SecureListener } from './tls/listener';
import type { Config } from './config';
import { isLoopback, urlHost } from './lib/host-names';
import { DEFAULT_HOST } from './contract/ipc';
import { trustCommand } from './contract/lan';
import { listensOnAll } from './http/own-names';
import { tuneMalloc } from './lib/malloc-tuning';
import { limitHeapGrowth } from './lib/heap-growth';
import { buildDeps, type Deps, type DepsOptions } from './deps';
import { createApp } from './app';
import { connectionSettings, createHttpServer } from './http/guards/connections';
import { watchdogIntervalMs } from './tfc-services';

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
  const deps = await buildDeps(config, opts);
  // PRAGMA quick_check on a worker thread (store/integrity.ts): damage found within the wait stops
  // the start before it writes anything of its own (migrations ran when the store opened). The app
  // and server, which write nothing, are built meanwhile: the check takes the whole wait on a
  // large database (bench/README.md's `start` row).
  const checked = deps.integrity?.start(config.startCheckWaitMs).then(
    () => undefined,
    (err: unknown) => err,
  );
  const app = createApp(deps);
  const server = createHttpServer(app.callback(), connectionSettings(config), deps.log);
  // Koa asks `instanceof Response` of each JSON body it is given, and the first ask loads Node's
  // fetch (undici): 25-35 ms that the first /healthz paid here. Done in the wait instead.
  void globalThis.Response;
  const damaged = await checked;
  if (damaged) {
    await deps.close();
    throw damaged;
  }
  // With HTTPS, `--http-port` opens first: ACME's HTTP-01 challenge arrives there while the first
  // certificate is obtained. A certificate that cannot be had stops the start before anything
  // runs (never plain HTTP instead).
  let plain: Port | undefined;
  const secure = await (async () => {
    if (deps.tls && config.httpPort)
      plain = await openPort(
        createNetServer((socket) => server.emit('connection', socket)),
        config.httpPort,
        config.host,
      );
    return startTls(deps, config);
  })().catch(async (err: unknown) => {
    await plain?.close();
    await deps.close();
    throw err;
  });
  // Whatever fails from here on closes what was opened: the certificate's renewal and the plain port.
  deps.onClose(() => deps.tls?.stop());
  try {
    return await serveWith(deps, config, server, secure, plain);
  } catch (err) {
    await plain?.close();
    await deps.close();
    throw err;
  }
}

/** The rest of the start, once the certificate is had: accounts, background work, the daemon's own port. */
async function serveWith(
  deps: Deps,
  config: Config,
  server: Server,
  secure: ((server: Server) => SecureListener) | undefined,
  plain: Port | undefined,
): Promise<RunningDaemon> {
  const admin = await deps.accounts.ensureAdmin(config.adminUsername, config.adminPassword);
  const sealed = await deps.twoFactor.sealStoredSecrets();
  if (sealed > 0) deps.log.info({ users: sealed }, 'encrypted stored TOTP secrets with secret.key');
  if (config.upstream) {
    const upstream = await deps.mirror.upstreams.ensureSystem(config.upstream, config.upstreamToken);
    await deps.settings.update({ pull_through_upstream_id: upstream.id });
  }
  // Background work runs in the daemon only, not in CLI commands that open the same data folder,
  // and in one daemon of several sharing a database (store/leader.ts).
  deps.onClose(
    await deps.leadership.whileLeading(async () => {
      const stops: Array<() => Promise<void> | void> = [];
      const stopAll = async () => {
        for (const stop of stops.reverse()) await stop();
      };
      try {
        stops.push(await deps.blobCollector.start());
        stops.push(await deps.mirror.runner.start());
        stops.push(
          deps.agents.watchdog.start(watchdogIntervalMs(config), (err) =>
            deps.log.error({ err }, 'agent watchdog tick failed'),
          ),
        );
      } catch (err) {
        // What started stops again: a later try starts everything anew.
        await stopAll();
        throw err;
      }
      return stopAll;
    }),
  );
  const listeners = [await listen(server, secure, config), ...(plain ? [plain] : [])];
  const { port } = listeners[0].address() as AddressInfo;
  deps.listening.port = port;
  // Listening on every interface (`0.0.0.0`, `::`), this machine reaches it on its loopback address.
  const host = listensOnAll(config.host) ? DEFAULT_HOST : urlHost(config.host);
  return {
    url: `${deps.tls ? 'https' : 'http'}://${host}:${port}`,
    server,
    deps,
    generatedAdminPassword: admin.generatedPassword,
    async close() {
      // Behind a load balancer: /readyz answers 503 while the daemon still serves for
      // drainSeconds, so the balancer stops sending requests and those in flight finish.
      deps.lifecycle.draining = true;
      if (config.drainSeconds > 0) await new Promise((r) => setTimeout(r, config.drainSeconds * 1000));
      deps.tls?.stop();
      // The ports stop taking connections, and those open (all the HTTP server's) are closed.
      const stopped = listeners.map((l) => l.close());
      server.closeAllConnections();
      await Promise.all(stopped);
      await deps.close();
    },
  };
}

/**
 * A port of the daemon: its own (plain HTTP, or HTTPS), and with HTTPS `--http-port`, whose
 * connections the same HTTP server answers (redirects to HTTPS, ACME challenges).
 */
interface Port {
  address(): AddressInfo | string | null;
  close(): Promise<void>;
}

/** The HTTPS listener with the first certificate, which later ones replace; undefined: plain HTTP. */
async function startTls(deps: Deps, config: Config): Promise<((server: Server) => SecureListener) | undefined> {
  if (!deps.tls) return undefined;
  let listener: SecureListener | undefined;
  // A certificate renewed before the listener exists (one due at start) is the one it begins with.
  let latest = await deps.tls.start((c) => {
    latest = c;
    listener?.update(c);
  });
  return (server) => (listener = new SecureListener(server, latest, config.headersTimeoutSeconds * 1000));
}

/**
 * Connections the kernel completes while the daemon has yet to accept them. Node asks for 511; when
 * 10,000 agents reconnect to a daemon that just started (1,000 a second, while V8 still compiles the
 * request path), a queue that short overflowed: the kernel dropped their SYNs and each waited a
 * second for TCP to retry (ListenOverflows in `nstat`, reports at 1.2 s). Linux caps it at
 * net.core.somaxconn (4,096 by default).
 */
const ACCEPT_BACKLOG = 4096;

function openPort(
  s: NetServer,
  port: number,
  host: string,
  close = () => new Promise<void>((r) => s.close(() => r())),
): Promise<Port> {
  return new Promise<Port>((resolve, reject) => {
    s.once('error', reject);
    s.listen({ port, host, backlog: ACCEPT_BACKLOG }, () => resolve({ address: () => s.address(), close }));
  });
}

/** The daemon's own port: plain HTTP, or HTTPS (which also answers a plain request, telling it to use https://). */
async function listen(
  server: Server,
  secure: ((server: Server) => SecureListener) | undefined,
  config: Config,
): Promise<Port> {
  if (!secure) return openPort(server, config.port, config.host);
  const tls = secure(server);
  return openPort(tls.server, config.port, config.host, () => tls.close());
}

/** `boxyard serve`: starts, prints the URL (and a generated admin password once), stops on signals. */
export async function serve(config: Config): Promise<void> {
  // Signal handlers go in before the daemon starts: it answers /healthz as soon as it listens,
  // and a SIGTERM from then on must stop it cleanly, not kill it (a stop asked for during start
  // runs once it has started).
  let stopping: string | undefined;
  let started: Awaited<ReturnType<typeof startDaemon>> | undefined;
  const stop = async (reason: string) => {
    if (stopping && started === undefined) return;
    stopping ??= reason;
    if (!started) return;
    const d = started;
    started = undefined;
    d.deps.log.info({ signal: stopping }, 'stopping');
    await d.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  // Before the daemon allocates much; a platform koffi cannot load on only costs memory under load.
  const malloc = await tuneMalloc().catch((err: unknown) => `malloc settings not applied: ${(err as Error).message}`);
  const heap = limitHeapGrowth();
  const d = await startDaemon(config);
  d.deps.log.info({ malloc, heap }, 'memory settings');
  if (d.generatedAdminPassword) {
    process.stdout.write(
      `Created administrator "${config.adminUsername}" with password: ${d.generatedAdminPassword}\n(shown once; change it with: npx boxyard user password ${config.adminUsername})\n`,
    );
  }
  process.stdout.write(`Boxyard listening on ${d.url} (data: ${config.dataDir})\n`);
  const ca = d.deps.tls?.ca;
  if (ca)
    process.stdout.write(
      `HTTPS with Boxyard's local CA: trust ${d.url}/ca.pem after checking its SHA-256 fingerprint\n  ${ca.fingerprint}\n  (${trustCommand(d.url, ca.fingerprint)})\n`,
    );
  const replaced = d.deps.tls?.status().local_ca?.replaced;
  if (ca && replaced)
    process.stdout.write(
      `  a new CA, made by boxyard tls new-ca on ${replaced.at.slice(0, 10)}: clients that trusted the one before must run that trust command again\n`,
    );
  if (!d.deps.tls && !isLoopback(config.host)) {
    process.stderr.write(
      `Warning: serving ${config.host} over plain HTTP: passwords, tokens and box files cross the network unencrypted. Start with --tls auto (or --tls-cert/--tls-key, or --tls acme).\n`,
    );
  }
  process.on('SIGHUP', () => void d.deps.tls?.reload());
  started = d;
  if (stopping) return stop(stopping);
}
