import { createServer, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionGuard } from './connection-guard';

// 127.0.0.2 stands for a flooding machine on the LAN, 127.0.0.1 for everyone else.
const FLOODER = '127.0.0.2';

/** A raw client connection and what became of it: the bytes it was sent, and how it ended. */
interface Client {
  socket: Socket;
  received: () => string;
  /** Resolves with the error code (ECONNRESET) or 'answered' once a whole answer came, whichever first. */
  outcome: Promise<string>;
}

function open(port: number, localAddress: string, request: string): Client {
  // Half-open allowed: like a flooder, the client never closes its side by itself.
  const socket = connect({ host: '127.0.0.1', port, localAddress, allowHalfOpen: true });
  let text = '';
  const outcome = new Promise<string>((resolve) => {
    socket.on('data', (b: Buffer) => {
      text += b.toString('latin1');
      const head = text.indexOf('\r\n\r\n');
      const length = Number(/content-length: (\d+)/i.exec(text)?.[1] ?? Number.NaN);
      if (head >= 0 && text.length - head - 4 >= length) resolve('answered');
    });
    socket.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
  socket.once('connect', () => socket.write(request));
  return { socket, received: () => text, outcome };
}

describe('refused sockets left lingering for their answer', () => {
  const servers: Array<{ close: () => void }> = [];
  const clients: Client[] = [];
  afterEach(() => {
    for (const c of clients.splice(0)) c.socket.destroy();
    for (const s of servers.splice(0)) s.close();
  });

  /** Requests stay unanswered (busy) but /ok's; one busy connection per address, 2 refusals lingering. */
  async function start(): Promise<{ port: number; requests: ServerResponse[] }> {
    const requests: ServerResponse[] = [];
    const server = createServer((req, res) => {
      if (req.url === '/ok') res.end('ok');
      else requests.push(res);
    });
    new ConnectionGuard({ maxPerAddress: 1, maxTotal: 100 }, pino({ level: 'silent' }), {
      ms: 60_000,
      max: 2,
    }).install(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    servers.push({ close: () => server.close() });
    return { port: (server.address() as AddressInfo).port, requests };
  }

  const GET = 'GET / HTTP/1.1\r\nHost: x\r\n\r\n';
  const settled = (c: Client) => {
    clients.push(c);
    return c.outcome;
  };

  it('answers refusals until the cap of lingering ones, resets past it, and answers again once one closes', async () => {
    const { port, requests } = await start();
    clients.push(open(port, FLOODER, GET));
    while (requests.length === 0) await new Promise((r) => setTimeout(r, 10));

    const answered = [open(port, FLOODER, GET), open(port, FLOODER, GET)];
    for (const c of answered) expect(await settled(c)).toBe('answered');
    for (const c of answered) {
      expect(c.received()).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/);
      expect(c.received()).toMatch(/\r\nConnection: close\r\n/);
      // Answered, and left open for its client to close.
      expect(c.socket.destroyed).toBe(false);
    }

    // Two linger: the next refusals are resets, without a byte of answer.
    for (let i = 0; i < 2; i++) {
      const reset = open(port, FLOODER, GET);
      expect(await settled(reset)).toBe('ECONNRESET');
      expect(reset.received()).toBe('');
    }

    // Another address is served meanwhile.
    const other = open(port, '127.0.0.1', 'GET /ok HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(await settled(other)).toBe('answered');
    expect(other.received()).toMatch(/^HTTP\/1\.1 200/);

    // A client that read its answer and closes frees its place: the next refusal is answered again.
    const closed = new Promise((r) => answered[0].socket.once('close', r));
    answered[0].socket.end();
    await closed;
    const again = open(port, FLOODER, GET);
    expect(await settled(again)).toBe('answered');
    expect(again.received()).toMatch(/^HTTP\/1\.1 503/);
  });
});
