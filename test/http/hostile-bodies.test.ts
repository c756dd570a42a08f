import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import { parseAnswer, rawConnect, rawGet, trickle, type RawConnection } from '../helpers/sockets';

// A slowloris flood that gets an answer at once (421 for an unknown Host) and then trickles the
// body it announced: the answer must close the connection, so that the body is never read and
// the connection never counts as idle while its client holds it open. 127.0.0.3 stands for
// another machine on the LAN.
const FLOODER = '127.0.0.3';
const CAP = 4;

describe('request bodies trickled after an early answer', () => {
  let d: TestDaemon;
  const held: RawConnection[] = [];

  beforeAll(async () => {
    d = await startTestDaemon({ config: { maxConnectionsPerAddress: CAP } });
  });
  afterAll(async () => {
    for (const c of held) c.socket.destroy();
    await d.stop();
  });

  it('closes each connection after its answer while the client still sends, and refuses the rest promptly', async () => {
    const flood = await Promise.all(Array.from({ length: 3 * CAP }, () => rawConnect(d.url, FLOODER)));
    held.push(...flood);
    for (const c of flood) {
      c.socket.write(
        'POST /api/v1/boxes HTTP/1.1\r\nHost: not-this-daemon.example\r\nContent-Type: application/json\r\n' +
          'Content-Length: 100000\r\n\r\n{',
      );
      // 10 bytes a second, for far longer than the test runs: only the daemon can end these.
      void trickle(c.socket, 'x'.repeat(99_999), 100);
    }
    const answers = (await Promise.all(flood.map((c) => c.closed))).map(parseAnswer);
    const misdirected = answers.filter((a) => a.status === 421);
    const refused = answers.filter((a) => a.status === 503);
    expect(misdirected.length + refused.length).toBe(flood.length);
    expect(misdirected.length).toBeGreaterThanOrEqual(CAP);
    for (const a of misdirected) {
      expect(a.headers.connection).toBe('close');
      expect(JSON.parse(a.body)).toMatchObject({ success: false, code: 'misdirected' });
    }
    for (const a of refused) expect(JSON.parse(a.body)).toMatchObject({ code: 'too_many_connections' });
    // Every slot of the address is free again: a request from it is served.
    expect((await rawGet(d.url, '/healthz', FLOODER)).status).toBe(200);
  });

  it('still reads a body the answer waited for, and keeps that connection open for the next request', async () => {
    const c = await rawConnect(d.url);
    held.push(c);
    const host = new URL(d.url).host;
    c.socket.write(`POST /api/v1/authenticate HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\n`);
    const body = JSON.stringify({ user: { login: 'nobody', password: 'wrong' } });
    c.socket.write(`Content-Length: ${body.length}\r\n\r\n${body}`);
    c.socket.write(`GET /healthz HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
    const both = await c.closed;
    expect(both.match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 401', 'HTTP/1.1 200']);
    expect(parseAnswer(both).headers.connection).toBe('keep-alive');
  });
});
