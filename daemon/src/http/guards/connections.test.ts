import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config';
import { clientIdle } from './connection-guard';
import { connectionSettings, createHttpServer, openFileLimit } from './connections';

const config = (env: Record<string, string> = {}) => loadConfig(env, { dataDir: '/tmp/x' });

describe('connection settings', () => {
  it("defaults: 20 s for headers, 60 s idle, keep-alive past the agents' ping, 128 per address", () => {
    expect(connectionSettings(config(), { fdLimit: 20_000 })).toEqual({
      headersTimeoutMs: 20_000,
      bodyIdleMs: 60_000,
      keepAliveMs: 65_000,
      maxPerAddress: 128,
      maxTotal: 17_276,
    });
  });

  it('takes the environment, and keeps keep-alive 5 s past a long ping interval', () => {
    const s = connectionSettings(
      config({
        BOXYARD_HEADERS_TIMEOUT_SECONDS: '5',
        BOXYARD_BODY_IDLE_SECONDS: '300',
        BOXYARD_AGENT_PING: '120',
        BOXYARD_MAX_CONNECTIONS_PER_ADDRESS: '2000',
        BOXYARD_MAX_CONNECTIONS: '3000',
      }),
      { fdLimit: 20_000 },
    );
    expect(s).toEqual({
      headersTimeoutMs: 5000,
      bodyIdleMs: 300_000,
      keepAliveMs: 125_000,
      maxPerAddress: 2000,
      maxTotal: 3000,
    });
  });

  it('derives the total cap from the open-file limit, with room for the blobs connections read', () => {
    expect(connectionSettings(config(), { fdLimit: 1024 }).maxTotal).toBe(672);
    expect(connectionSettings(config(), { fdLimit: 200 }).maxTotal).toBe(64);
    expect(connectionSettings(config(), { fdLimit: undefined }).maxTotal).toBe(4096);
  });

  it('reads the soft open-file limit from a limits file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'boxyard-limits-'));
    writeFileSync(
      join(dir, 'limits'),
      'Limit                     Soft Limit           Hard Limit           Units\nMax open files            1024                 524288               files\n',
    );
    expect(openFileLimit(join(dir, 'limits'))).toBe(1024);
    expect(openFileLimit(join(dir, 'missing'))).toBeUndefined();
  });
});

describe('an idle connection', () => {
  const inFlight = (
    req: { complete: boolean; paused?: boolean; buffered?: number },
    res: { headersSent: boolean },
  ) => ({
    req: {
      complete: req.complete,
      isPaused: () => req.paused ?? false,
      readableLength: req.buffered ?? 0,
    } as unknown as IncomingMessage,
    res: res as unknown as ServerResponse,
  });

  it('is dropped when its client stopped sending a body it reads, or stopped reading an answer, or after an answer', () => {
    expect(clientIdle(inFlight({ complete: false }, { headersSent: false }))).toBe(true);
    expect(clientIdle(inFlight({ complete: true }, { headersSent: true }))).toBe(true);
    expect(clientIdle('answered')).toBe(true);
  });

  it('is kept while the daemon is behind: a body it paused or has not read yet, a whole request it works on', () => {
    expect(clientIdle(inFlight({ complete: false, paused: true }, { headersSent: false }))).toBe(false);
    expect(clientIdle(inFlight({ complete: false, buffered: 65536 }, { headersSent: false }))).toBe(false);
    expect(clientIdle(inFlight({ complete: true }, { headersSent: false }))).toBe(false);
  });

  it('before any request is left to the headers deadline (408)', () => {
    expect(clientIdle(undefined)).toBe(false);
  });
});

describe('a keep-alive connection between requests', () => {
  // V8's collector, for this test's process only: whether the server still holds an answer.
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;

  it('holds no answered request, and is still closed when idle for longer than the keep-alive time', async () => {
    const answers: Array<WeakRef<ServerResponse>> = [];
    const sockets = new Set<unknown>();
    const server = createHttpServer(
      (req, res) => {
        answers.push(new WeakRef(res));
        sockets.add(req.socket);
        res.end('{}');
      },
      { headersTimeoutMs: 20_000, bodyIdleMs: 60_000, keepAliveMs: 2500, maxPerAddress: 10, maxTotal: 10 },
      pino({ level: 'silent' }),
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const get = () =>
      new Promise<number>((resolve, reject) => {
        request({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, path: '/', agent }, (res) => {
          res.resume();
          // The socket goes back to the agent's pool a tick after the answer's end.
          res.on('end', () => setImmediate(() => resolve(res.statusCode ?? 0)));
        })
          .on('error', reject)
          .end();
      });
    try {
      expect([await get(), await get()]).toEqual([200, 200]);
      expect(sockets.size).toBe(1);
      const [socket] = sockets as Set<NodeJS.EventEmitter>;
      sockets.clear();
      const closed = new Promise((r) => socket.once('close', r));
      for (let i = 0; i < 5 && answers.some((a) => a.deref()); i++) {
        await new Promise((r) => setImmediate(r));
        gc();
      }
      // The connection is open (closed after 2.5 s idle at the earliest), and neither answer is held by it.
      expect(answers.map((a) => a.deref() === undefined)).toEqual([true, true]);
      await closed;
    } finally {
      agent.destroy();
      await new Promise((r) => server.close(r));
    }
  });
});

describe('pipelined requests', () => {
  it('a request under way is not taken for an idle connection when the answer before it finishes', async () => {
    // The second request takes longer than the idle time while its connection moves no byte: it is
    // the daemon that works, so the connection stays.
    const server = createHttpServer(
      (req, res) => {
        if (req.url === '/slow') setTimeout(() => res.end('slow'), 1000);
        else res.end('fast');
      },
      { headersTimeoutMs: 20_000, bodyIdleMs: 300, keepAliveMs: 2500, maxPerAddress: 10, maxTotal: 10 },
      pino({ level: 'silent' }),
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
      let text = '';
      socket.setEncoding('utf8').on('data', (d: string) => {
        text += d;
      });
      const ended = new Promise((r) => socket.once('close', r));
      socket.write('GET /fast HTTP/1.1\r\nHost: x\r\n\r\nGET /slow HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      await ended;
      expect(text.match(/HTTP\/1\.1 \d+/g)).toEqual(['HTTP/1.1 200', 'HTTP/1.1 200']);
      expect(text).toMatch(/fast[\s\S]*slow$/);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
