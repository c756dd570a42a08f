import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AddressNotAllowedError } from '../../lib/errors';
import { Outbound } from './outbound';

/** The lookup a restricted connection uses: no address reaches net.connect unchecked (no connection is made here). */
describe('Outbound.lookup', () => {
  const answers = new Map<string, Array<{ address: string; family: number }>>([
    [
      'rebind.example',
      [
        { address: '93.184.215.14', family: 4 },
        { address: '127.0.0.1', family: 4 },
      ],
    ],
    [
      'public.example',
      [
        { address: '93.184.215.14', family: 4 },
        { address: '2606:4700::1111', family: 6 },
      ],
    ],
  ]);
  let lookups = 0;
  const outbound = new Outbound(
    async () => ({ allowed: [] }),
    async (host) => {
      lookups++;
      return answers.get(host) ?? [];
    },
  );
  const look = (host: string, all: boolean) =>
    new Promise<{ err: Error | null; address: unknown; family?: number }>((resolve) => {
      outbound.lookup(host, { all }, (err, address, family) => resolve({ err, address, family }));
    });

  it('refuses a name when any address it resolves to is refused', async () => {
    const r = await look('rebind.example', true);
    expect(r.err).toBeInstanceOf(AddressNotAllowedError);
  });

  it('hands the connection the addresses it checked, in either form net.connect asks for', async () => {
    lookups = 0;
    expect(await look('public.example', true)).toEqual({
      err: null,
      address: answers.get('public.example'),
      family: undefined,
    });
    expect(await look('public.example', false)).toEqual({ err: null, address: '93.184.215.14', family: 4 });
    expect(lookups).toBe(2);
  });

  it('refuses an address literal before any request, and lets an unresolvable name through to its lookup', async () => {
    await expect(outbound.fetch('http://127.0.0.1:9/x', {}, { restricted: true, ca: null })).rejects.toThrow(
      AddressNotAllowedError,
    );
    await expect(outbound.check('http://[fe80::1]/')).rejects.toThrow(AddressNotAllowedError);
    await expect(outbound.check('http://nowhere.example/')).resolves.toBeUndefined();
  });
});

/** Agents are kept per kind of reach, a bounded number of them: one pushed out closes its connections. */
describe('Outbound agents', () => {
  let server: Server;
  let base: string;
  const sockets: Socket[] = [];
  beforeAll(async () => {
    server = createServer((_req, res) => res.end('ok'));
    // Connections would stay open ten minutes: only closing the agent ends one sooner.
    server.keepAliveTimeout = 600_000;
    server.on('connection', (s: Socket) => sockets.push(s));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  });

  it('closes the connections of the agent used longest ago when a new kind of reach needs room', async () => {
    const outbound = new Outbound(
      async () => ({ allowed: [] }),
      async () => [],
      1,
    );
    const get = async (ca: string) => (await outbound.fetch(base, {}, { restricted: false, ca })).text();
    expect(await get('first')).toBe('ok');
    expect(sockets).toHaveLength(1);
    const [first] = sockets;
    const closed = once(first, 'close');
    expect(await get('second')).toBe('ok');
    await closed;
    expect(sockets).toHaveLength(2);
    expect(sockets[1].destroyed).toBe(false);
  });
});
