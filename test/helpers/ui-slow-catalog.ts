import { createHash } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface SlowCatalog {
  url: string;
  /** Bytes of the box file the catalog names. */
  size: number;
  close(): Promise<void>;
}

/**
 * A Vagrant catalog upstream on 127.0.0.1 whose one box file trickles out (`chunk` bytes every
 * `everyMs`), so a browser test sees a mirror job running, its bar move, and can cancel it.
 * Serves `GET /ORG/BOX` (the catalog, as `vagrant box add` reads it) and `HEAD`/`GET` of the file.
 */
export async function slowCatalog(
  tag: string,
  opts: { size?: number; chunk?: number; everyMs?: number } = {},
): Promise<SlowCatalog> {
  const size = opts.size ?? 4 * 1024 * 1024;
  const chunk = opts.chunk ?? 64 * 1024;
  const file = Buffer.alloc(size, 0x5a);
  const checksum = createHash('sha256').update(file).digest('hex');
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let base = '';

  const trickle = (res: ServerResponse) => {
    let sent = 0;
    const timer = setInterval(() => {
      if (res.destroyed) {
        clearInterval(timer);
        timers.delete(timer);
        return;
      }
      res.write(file.subarray(sent, sent + chunk));
      sent += chunk;
      if (sent >= size) {
        clearInterval(timer);
        timers.delete(timer);
        res.end();
      }
    }, opts.everyMs ?? 100);
    timers.add(timer);
  };

  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path === `/${tag}`) {
      res.setHeader('content-type', 'application/json');
      return void res.end(
        JSON.stringify({
          name: tag,
          versions: [
            {
              version: '1.0.0',
              status: 'active',
              providers: [
                {
                  name: 'virtualbox',
                  architecture: 'amd64',
                  url: `${base}/files/slow.box`,
                  checksum_type: 'sha256',
                  checksum,
                },
              ],
            },
          ],
        }),
      );
    }
    if (path === '/files/slow.box') {
      res.setHeader('content-type', 'application/octet-stream');
      res.setHeader('content-length', String(size));
      if (req.method === 'HEAD') return void res.end();
      return trickle(res);
    }
    res.statusCode = 404;
    res.end('{"errors":["not found"]}');
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    size,
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearInterval(t);
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
