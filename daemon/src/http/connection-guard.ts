import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';

export interface ConnectionCaps {
  /** Open connections allowed from one client address. */
  maxPerAddress: number;
  /** Open connections allowed in all. */
  maxTotal: number;
}

/** The key of the total cap among the warned-about limits (no address looks like it). */
const ALL = '*';

/** How long a refused socket may linger for its answer to be read before it is destroyed. */
const REFUSED_LINGER_MS = 1000;

/** A whole HTTP answer written straight to the socket: no parser, no request, no middleware. */
function refusal(message: string): string {
  const body = JSON.stringify({ errors: [message], success: false });
  return 'HTTP/1.1 503 Service Unavailable\r\nRetry-After: 5\r\nConnection: close\r\n'
    + `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

/**
 * Caps open connections per client address and in all, before Node's HTTP parser sees them: a
 * socket over a cap is answered 503 (Retry-After, Connection: close) and closed, without a request
 * being read, so one address flooding (slowloris) cannot take the descriptors everyone else needs.
 * Addresses are counted exactly as the socket reports them (on a LAN, IPv6 hosts share one /64).
 */
export class ConnectionGuard {
  private readonly open = new Map<string, number>();
  private total = 0;
  /** Limits refused at since their count last fell (an address to zero, the total to half): warned about once each. */
  private readonly warned = new Set<string>();

  constructor(private readonly caps: ConnectionCaps, private readonly log: Logger) {}

  /**
   * Puts the guard in front of the server's own connection handling. `http.Server` handles a
   * socket in its 'connection' listener; the guard calls it only for sockets it admits.
   */
  install(server: Server): void {
    const own = server.listeners('connection') as Array<(socket: Socket) => void>;
    server.removeAllListeners('connection');
    server.on('connection', (socket: Socket) => {
      if (this.admit(socket)) for (const listener of own) listener.call(server, socket);
    });
  }

  /** Open connections now: from one address, or in all. */
  count(address?: string): number {
    return address === undefined ? this.total : this.open.get(address) ?? 0;
  }

  private admit(socket: Socket): boolean {
    const address = socket.remoteAddress ?? 'unknown';
    const mine = this.open.get(address) ?? 0;
    if (mine >= this.caps.maxPerAddress) {
      this.refuse(socket, address, `Too many connections from ${address} (${mine} open). Close some, or retry in a few seconds.`, address);
      return false;
    }
    if (this.total >= this.caps.maxTotal) {
      this.refuse(socket, address, `The server is at its limit of ${this.caps.maxTotal} connections. Retry in a few seconds.`, ALL);
      return false;
    }
    this.open.set(address, mine + 1);
    this.total++;
    socket.once('close', () => {
      this.total--;
      if (this.total < this.caps.maxTotal / 2) this.warned.delete(ALL);
      const left = (this.open.get(address) ?? 1) - 1;
      if (left > 0) this.open.set(address, left);
      else {
        this.open.delete(address);
        this.warned.delete(address);
      }
    });
    return true;
  }

  /** `limit` is the address whose cap was reached, or ALL for the total cap. */
  private refuse(socket: Socket, address: string, message: string, limit: string): void {
    if (!this.warned.has(limit)) {
      this.warned.add(limit);
      this.log.warn({ address, open: this.open.get(address) ?? 0, total: this.total }, limit === ALL
        ? 'total connection limit reached; refusing new connections'
        : 'connection limit reached; refusing more connections from this address');
    } else {
      this.log.debug({ address }, 'connection refused over the limit');
    }
    // Reading (and dropping) what the client sends lets the answer arrive: closing a socket with
    // unread input sends a reset, which can overtake the answer. A client that never closes is
    // cut off after a second.
    socket.on('error', () => undefined);
    socket.setTimeout(REFUSED_LINGER_MS, () => socket.destroy());
    socket.resume();
    socket.end(refusal(message));
  }
}
