import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Middleware } from 'koa';
import type { Socket } from 'node:net';
import { TLSSocket } from 'node:tls';
import type { Logger } from 'pino';
import { TooManyConnectionsError } from '../../lib/errors';
import { render } from '../errors/dialects';

export interface ConnectionCaps {
  /** Open connections allowed from one client address. */
  maxPerAddress: number;
  /** Open connections allowed in all. */
  maxTotal: number;
}

/** A refused socket's errors (its client's reset) are nobody's concern. */
const ignore = () => undefined;

/** The key of the total cap among the warned-about limits (no address looks like it). */
const ALL = '*';

/** How refused sockets linger for their answer to be read. */
export interface Linger {
  /** How long a refused socket may linger before it is destroyed. */
  ms: number;
  /**
   * Refused sockets left lingering at once. A flood refused thousands of times a second by a client
   * that does not close them would otherwise hold a descriptor for each for the linger; past this, a
   * refused socket is reset at once, without its answer.
   */
  max: number;
}

const LINGER: Linger = { ms: 1000, max: 256 };
/** Refusal answers kept as bytes (each names an address, or the total cap). */
const MAX_KEPT_REFUSALS = 64;

/**
 * The whole HTTP answers written straight to refused sockets: no parser, no request, no
 * middleware. No path was read, so no mount chose a dialect: the box API's body, which every
 * client of the daemon reads. Kept as bytes by their message (the few an address and the total
 * cap give): a flood is refused hundreds of times a second with the same one.
 */
class Refusals {
  private readonly answers = new Map<string, Buffer>();

  answer(message: string): Buffer {
    let bytes = this.answers.get(message);
    if (bytes) return bytes;
    const body = JSON.stringify(render(new TooManyConnectionsError(message), 'box').body);
    bytes = Buffer.from(
      'HTTP/1.1 503 Service Unavailable\r\nRetry-After: 5\r\nConnection: close\r\n' +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    if (this.answers.size >= MAX_KEPT_REFUSALS) this.answers.clear();
    this.answers.set(message, bytes);
    return bytes;
  }
}

type InFlight = { req: IncomingMessage; res: ServerResponse };
/** A connection's request: one under way, or its last one read whole and answered. */
type ConnectionState = InFlight | 'answered';

/**
 * A connection the guard counts: busy from its start until an answer ends, idle between requests.
 * Between requests it keeps only the string 'answered', never its last request and response:
 * kept for 10 s by each of 1,000 agents, those outlived young-generation GCs (bench/'s `agents` row).
 */
interface Tracked {
  socket: Socket;
  address: string;
  idle: boolean;
  gone: boolean;
  request: ConnectionState | undefined;
}

/**
 * Whether a connection that moved no byte for `bodyIdleMs` (or, between requests, `keepAliveMs`)
 * is the client's fault and is dropped: a request body that stopped coming (a stalled upload or
 * trickled JSON), an answer nobody reads (a stalled download), idleness after an answer. Not
 * when the daemon itself is behind: it works on a whole request (fsyncing a multi-gigabyte upload
 * may take longer than the idle time, and its client waits for the answer) or has stopped reading
 * a body its disk or hashing cannot keep up with. Before any request the headers deadline answers.
 */
export function clientIdle(r: ConnectionState | undefined): boolean {
  if (!r) return false;
  if (r === 'answered') return true;
  if (!r.req.complete) return !(r.req.isPaused() || r.req.readableLength > 0);
  return r.res.headersSent;
}

/**
 * Caps connections before Node's HTTP parser sees them, so one address flooding (slowloris)
 * cannot take the descriptors everyone else needs. Per address, the cap counts busy connections:
 * those not yet past their first request, or with a request or answer under way — a slow client
 * holds its connection busy. Idle keep-alive connections between requests do not count there
 * (1,000 agents behind one address each keep one between reports), but they do count in the
 * total; at the total cap the longest-idle one is closed to make room (its client reconnects, as
 * HTTP clients do when a server ends an idle connection), and only when none is idle is a new
 * connection refused. A refused socket gets a fixed 503 (Retry-After, Connection: close) without
 * a request being read. Addresses are counted exactly as the socket reports them (on a LAN, IPv6
 * hosts share one /64).
 */
export class ConnectionGuard {
  private readonly busy = new Map<string, number>();
  /** Idle connections, longest idle first (a Map keeps insertion order). */
  private readonly idle = new Map<Socket, Tracked>();
  private readonly tracked = new WeakMap<Socket, Tracked>();
  private total = 0;
  /** Refused sockets still open for their answer to be read (Linger.max). */
  private lingering = 0;
  /** Limits refused at since their count last fell (an address to zero, the total to half): warned about once each. */
  private readonly warned = new Set<string>();
  private readonly refusals = new Refusals();

  constructor(
    private readonly caps: ConnectionCaps,
    private readonly log: Logger,
    private readonly linger: Linger = LINGER,
  ) {}

  /**
   * Puts the guard in front of the server's own connection handling. `http.Server` handles a
   * socket in its 'connection' listener; the guard calls it only for sockets it admits, and
   * follows each request to tell busy connections from idle ones and, when one times out, whether
   * the client is at fault (`clientIdle`).
   */
  install(server: Server): void {
    const own = server.listeners('connection') as Array<(socket: Socket) => void>;
    server.removeAllListeners('connection');
    server.on('connection', (socket: Socket) => {
      if (this.admit(socket)) for (const listener of own) listener.call(server, socket);
    });
    server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
      const t = this.tracked.get(req.socket);
      if (!t) return;
      const request = { req, res };
      t.request = request;
      if (t.idle) this.markBusy(t);
      res.once('finish', () => {
        // An answer that went out before its body was all in (closeIfBodyUnread) leaves the
        // connection busy until the body is in or the connection closes.
        if (req.complete) this.answered(t, request);
        else req.once('end', () => this.answered(t, request));
      });
    });
    server.on('timeout', (socket: Socket) => {
      if (clientIdle(this.tracked.get(socket)?.request)) socket.destroy();
    });
  }

  private answered(t: Tracked, request: InFlight): void {
    if (!t.gone && !t.socket.destroyed) this.markIdle(t);
    // Only the latest request marks it: a pipelined one that came meanwhile is under way.
    if (t.request === request) t.request = 'answered';
  }

  /** Connections now: busy ones from one address, or all of them. */
  count(address?: string): number {
    return address === undefined ? this.total : (this.busy.get(address) ?? 0);
  }

  private admit(socket: Socket): boolean {
    const address = socket.remoteAddress ?? 'unknown';
    const mine = this.busy.get(address) ?? 0;
    if (mine >= this.caps.maxPerAddress) {
      this.refuse(socket, address, address);
      return false;
    }
    if (this.total >= this.caps.maxTotal && !this.closeLongestIdle()) {
      this.refuse(socket, address, ALL);
      return false;
    }
    const t: Tracked = { socket, address, idle: true, gone: false, request: undefined };
    this.tracked.set(socket, t);
    this.total++;
    this.markBusy(t);
    socket.once('close', () => this.forget(t));
    return true;
  }

  private markBusy(t: Tracked): void {
    this.idle.delete(t.socket);
    t.idle = false;
    this.busy.set(t.address, (this.busy.get(t.address) ?? 0) + 1);
  }

  private markIdle(t: Tracked): void {
    if (t.idle) return;
    t.idle = true;
    this.idle.set(t.socket, t);
    const left = (this.busy.get(t.address) ?? 1) - 1;
    if (left > 0) this.busy.set(t.address, left);
    else {
      this.busy.delete(t.address);
      this.warned.delete(t.address);
    }
  }

  /** Counted out at once (its 'close' comes later), so the connection it makes room for fits. */
  private forget(t: Tracked): void {
    if (t.gone) return;
    this.markIdle(t);
    this.idle.delete(t.socket);
    t.gone = true;
    this.total--;
    if (this.total < this.caps.maxTotal / 2) this.warned.delete(ALL);
  }

  private closeLongestIdle(): boolean {
    const oldest = this.idle.values().next().value as Tracked | undefined;
    if (!oldest) return false;
    this.forget(oldest);
    oldest.socket.destroy();
    this.log.debug({ address: oldest.address }, 'closed an idle connection to make room');
    return true;
  }

  /** `limit` is the address whose cap was reached, or ALL for the total cap. */
  private refuse(socket: Socket, address: string, limit: string): void {
    if (!this.warned.has(limit)) {
      this.warned.add(limit);
      this.log.warn(
        { address, busy: this.busy.get(address) ?? 0, total: this.total },
        limit === ALL
          ? 'total connection limit reached; refusing new connections'
          : 'connection limit reached; refusing more connections from this address',
      );
    }
    socket.on('error', ignore);
    if (this.lingering >= this.linger.max) {
      // A reset: the kernel forgets the connection at once (no FIN handshake, no TIME_WAIT). TLS
      // sockets (tls/listener.ts) cannot be reset through their wrapper: closed.
      if (socket instanceof TLSSocket) socket.destroy();
      else socket.resetAndDestroy();
      return;
    }
    // The answer goes out and the socket waits for its client to close it, as a client that read
    // "Connection: close" does: a flooder that does not is kept out of the accept queue for the
    // linger instead of reconnecting at once. Reading (and dropping) what the client sends sees
    // its close and lets the answer arrive (closing a socket with unread input sends a reset,
    // which can overtake the answer); whatever the client does, the socket goes after the linger.
    this.lingering++;
    const timer = setTimeout(() => socket.destroy(), this.linger.ms).unref();
    socket.once('close', () => {
      this.lingering--;
      clearTimeout(timer);
    });
    socket.once('end', () => socket.destroy());
    socket.resume();
    socket.write(
      this.refusals.answer(
        limit === ALL
          ? `The server is at its limit of ${this.caps.maxTotal} connections. Retry in a few seconds.`
          : `Too many connections from ${address} (${this.busy.get(address) ?? 0} open). Close some, or retry in a few seconds.`,
      ),
    );
  }
}

/**
 * Koa middleware, first of all: an answer that goes out before its request's body is all in (a
 * refusal: the Host, a token, a rate limit) closes the connection after it, so the rest of the
 * body is never read. Otherwise Node reads the body to reach the connection's next request, and a
 * flood of POSTs trickling their bodies after such an answer would hold connections the guard has
 * to count as busy until the body is in.
 */
export const closeIfBodyUnread: Middleware = async (ctx, next) => {
  await next();
  if (!ctx.req.complete && !ctx.headerSent) ctx.set('Connection', 'close');
};
