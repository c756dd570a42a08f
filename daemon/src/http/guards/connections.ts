import { readFileSync } from 'node:fs';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { Logger } from 'pino';
import type { Config } from '../../config';
import { ConnectionGuard } from './connection-guard';
import { isUploadTargetPath } from '../route-table';

export interface ConnectionSettings {
  /** A request's headers must be complete this long after its first byte (or the connection's start). */
  headersTimeoutMs: number;
  /** A connection with a request under way that moves no byte for this long is dropped. */
  bodyIdleMs: number;
  /** An idle keep-alive connection is closed after this long. */
  keepAliveMs: number;
  maxPerAddress: number;
  maxTotal: number;
}

/** Descriptors kept for what is not a client socket: the database, log, workers, upstreams. */
const FD_HEADROOM = 256;
/** The total cap when the open-file limit cannot be read (macOS, Windows: Node raises it there). */
const FALLBACK_MAX_CONNECTIONS = 4096;

/** The soft limit on open files of this process (Linux), or undefined where it cannot be read. */
export function openFileLimit(limitsFile = '/proc/self/limits'): number | undefined {
  try {
    const m = /^Max open files\s+(\d+)/m.exec(readFileSync(limitsFile, 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

type ConnectionConfig = Pick<
  Config,
  'headersTimeoutSeconds' | 'bodyIdleSeconds' | 'agentPingSeconds' | 'maxConnectionsPerAddress' | 'maxConnections'
>;

/** The server's timeouts and caps from the config (and the open-file limit, for an automatic total). */
export function connectionSettings(
  c: ConnectionConfig,
  { fdLimit }: { fdLimit: number | undefined } = { fdLimit: openFileLimit() },
): ConnectionSettings {
  // A connection holds its socket; one moving a file holds the blob's descriptor too. Most
  // connections are agents' idle keep-alive ones (10,000 agents, 10,000 connections), so an eighth
  // of the descriptors is kept for the files being moved, not a second one for every connection.
  const auto =
    fdLimit === undefined ? FALLBACK_MAX_CONNECTIONS : Math.max(64, Math.floor(((fdLimit - FD_HEADROOM) * 7) / 8));
  return {
    headersTimeoutMs: c.headersTimeoutSeconds * 1000,
    bodyIdleMs: c.bodyIdleSeconds * 1000,
    // Idle connections stay open past an agent's ping interval: agents (fetch honours the server's
    // `Keep-Alive: timeout=` hint) then report on the connection they have instead of opening a new
    // one every ping, which was most of a report's cost with 1,000 agents (bench/'s `agents` row).
    keepAliveMs: Math.max(65_000, (c.agentPingSeconds + 5) * 1000),
    maxPerAddress: c.maxConnectionsPerAddress,
    maxTotal: c.maxConnections > 0 ? c.maxConnections : auto,
  };
}

/**
 * The daemon's HTTP server: timeouts against slow clients (slowloris) that still let a
 * multi-gigabyte upload on a slow link finish (idle, never total: `requestTimeout` stays 0; small
 * JSON bodies get a total deadline in body.ts), and caps on connections per address and in all.
 */
export function createHttpServer(handler: RequestListener, s: ConnectionSettings, log: Logger): Server {
  // Node checks header deadlines on this interval (default 30 s, which would stretch a 20 s limit to 50 s).
  const connectionsCheckingInterval = Math.min(5000, Math.max(100, Math.floor(s.headersTimeoutMs / 4)));
  const server = createServer({ connectionsCheckingInterval }, handler);
  // `Expect: 100-continue`: upload PUTs send "100 Continue" themselves once the upload URL checks
  // out (blobs/uploads/routes.ts), so a stale URL is refused before the client sends gigabytes.
  server.on('checkContinue', (req, res) => {
    if (!isUploadTargetPath(req.url ?? '')) res.writeContinue();
    server.emit('request', req, res);
  });
  server.requestTimeout = 0;
  server.headersTimeout = s.headersTimeoutMs;
  server.keepAliveTimeout = s.keepAliveMs;
  // A connection that times out is dropped only when its client is at fault (connection-guard.ts).
  server.timeout = s.bodyIdleMs;
  new ConnectionGuard({ maxPerAddress: s.maxPerAddress, maxTotal: s.maxTotal }, log).install(server);
  return server;
}
