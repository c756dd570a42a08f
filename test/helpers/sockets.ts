import { connect, type Socket } from 'node:net';

/** A raw TCP connection to a daemon, for clients that misbehave on purpose (slowloris, floods). */
export interface RawConnection {
  socket: Socket;
  /** Everything the server sent so far. */
  received(): string;
  /** Resolves when the connection is closed (by either side), with everything the server sent. */
  closed: Promise<string>;
}

/** Connects to `url`'s host and port from `localAddress` (any 127.0.0.0/8 address is on loopback). */
export function rawConnect(url: string, localAddress = '127.0.0.1'): Promise<RawConnection> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: u.hostname, port: Number(u.port), localAddress });
    let text = '';
    socket.on('data', (b: Buffer) => {
      text += b.toString('latin1');
    });
    // A reset after the server's answer is fine: the answer was read.
    socket.on('error', () => undefined);
    const closed = new Promise<string>((done) => socket.once('close', () => done(text)));
    socket.once('connect', () => resolve({ socket, received: () => text, closed }));
    socket.once('error', reject);
  });
}

/** Writes `bytes` one at a time, `everyMs` apart, until done or the connection closes. */
export async function trickle(socket: Socket, bytes: string, everyMs: number): Promise<void> {
  for (const ch of bytes) {
    if (socket.destroyed || socket.writableEnded) return;
    socket.write(ch);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** The status code and headers (lower-case names) of a raw HTTP answer, and its body. */
export function parseAnswer(raw: string): { status: number; headers: Record<string, string>; body: string } {
  const end = raw.indexOf('\r\n\r\n');
  const [statusLine, ...lines] = (end < 0 ? raw : raw.slice(0, end)).split('\r\n');
  const headers: Record<string, string> = {};
  for (const l of lines) {
    const i = l.indexOf(':');
    if (i > 0) headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
  }
  return {
    status: Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine ?? '')?.[1] ?? 0),
    headers,
    body: end < 0 ? '' : raw.slice(end + 4),
  };
}

/** A GET through a raw connection that closes after the answer; resolves with the parsed answer. */
export async function rawGet(url: string, path: string, localAddress = '127.0.0.1') {
  const c = await rawConnect(url, localAddress);
  c.socket.write(`GET ${path} HTTP/1.1\r\nHost: ${new URL(url).host}\r\nConnection: close\r\n\r\n`);
  return parseAnswer(await c.closed);
}
