import { randomBytes } from 'node:crypto';
import { createServer, type Server as NetServer, type Socket } from 'node:net';
import { createSecureContext, TLSSocket, type SecureContext } from 'node:tls';
import type { Server } from 'node:http';
import type { ServedCertificate } from './issuer';

/** The first byte of a TLS handshake record; anything else on the port is taken for plain HTTP. */
const HANDSHAKE = 0x16;

function contextOf(c: ServedCertificate, ticketKeys: Buffer): SecureContext {
  // Session tickets (one set of keys for the daemon's life): a client that reconnects resumes
  // instead of paying a full handshake again.
  return createSecureContext({ key: c.key, cert: c.cert, ticketKeys, sessionTimeout: 3600, minVersion: 'TLSv1.2' });
}

/**
 * The HTTPS port: a TCP server that hands each connection to the daemon's one HTTP server
 * (http/guards/connections.ts: caps, timeouts, the idle policy), wrapped in TLS when it opens with
 * a handshake, as it is otherwise: a plain-HTTP request is then answered by the HTTP server itself,
 * which tells it to use https:// in its API's dialect (http/guards/https.ts) instead of a reset.
 * A new certificate applies to new connections; those open keep theirs.
 */
export class SecureListener {
  readonly server: NetServer;
  private context: SecureContext;
  private readonly ticketKeys = randomBytes(48);
  /** Connections that have not sent their first byte: not the HTTP server's yet, so closed here. */
  private readonly waiting = new Set<Socket>();

  constructor(
    private readonly http: Server,
    first: ServedCertificate,
    private readonly firstByteMs: number,
  ) {
    this.context = contextOf(first, this.ticketKeys);
    this.server = createServer({ pauseOnConnect: false }, (socket) => this.accept(socket));
  }

  update(c: ServedCertificate): void {
    this.context = contextOf(c, this.ticketKeys);
  }

  /**
   * Stops listening and drops the connections still silent; the HTTP server closes the others.
   * Not awaited: the TCP server counts each connection until its socket closes, and a socket
   * whose handle TLS took over never says so.
   */
  close(): Promise<void> {
    this.server.close();
    for (const s of this.waiting) s.destroy();
    return Promise.resolve();
  }

  private accept(raw: Socket): void {
    raw.on('error', () => raw.destroy());
    // A connection that sends nothing is not the HTTP server's yet: it is dropped here (slowloris).
    raw.setTimeout(this.firstByteMs, () => raw.destroy());
    this.waiting.add(raw);
    raw.once('close', () => this.waiting.delete(raw));
    raw.once('data', (chunk: Buffer) => {
      this.waiting.delete(raw);
      raw.setTimeout(0);
      raw.pause();
      // Given back: TLS reads it from the socket's buffer and then takes over the socket's handle.
      raw.unshift(chunk);
      if (chunk[0] !== HANDSHAKE) {
        this.http.emit('connection', raw);
        // The HTTP server reads a socket's handle directly, past what was given back: a 'data'
        // listener makes it read through the stream instead (only for this answer of an error).
        raw.on('data', () => undefined);
        raw.resume();
        return;
      }
      const secure = new TLSSocket(raw, { isServer: true, secureContext: this.context, ALPNProtocols: ['http/1.1'] });
      secure.on('error', () => secure.destroy());
      this.http.emit('connection', secure);
    });
  }
}
