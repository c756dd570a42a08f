import { request } from 'node:http';
import { connect } from 'node:net';
import type { Readable } from 'node:stream';

export interface RawResponse {
  status: number;
  /** The server sent "100 Continue" (only asked for with `Expect: 100-continue`). */
  continued?: boolean;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/**
 * A PUT through node:http, so tests control the framing the real clients use: Content-Length or
 * chunked (no length), `Expect: 100-continue` (curl in vagrant), any Content-Type (Packer's JSON).
 */
export function rawPut(
  url: string,
  body: Buffer | Readable,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const expectContinue = Object.keys(headers).some((h) => h.toLowerCase() === 'expect');
    let continued = false;
    const req = request(url, { method: 'PUT', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          continued,
          headers: res.headers,
          text: Buffer.concat(chunks).toString('utf8'),
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    const send = () => (Buffer.isBuffer(body) ? req.end(body) : body.pipe(req));
    if (expectContinue)
      req.on('continue', () => {
        continued = true;
        send();
      });
    else send();
  });
}

/** Announces `declared` bytes, sends only `sent`, then drops the connection (a client that died). */
export function truncatedPut(url: string, declared: number, sent: Buffer): Promise<void> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(u.port), u.hostname, () => {
      socket.write(
        `PUT ${u.pathname} HTTP/1.1\r\nHost: ${u.host}\r\nContent-Length: ${declared}\r\nContent-Type: application/octet-stream\r\n\r\n`,
      );
      socket.write(sent, () => setTimeout(() => socket.destroy(), 100));
    });
    socket.on('close', () => resolve());
    socket.on('error', reject);
  });
}

/** A GET with a Range header through node:http, so the body may be cut short by the test. */
export function rawGet(url: string, headers: Record<string, string> = {}): Promise<RawResponse & { body: Buffer }> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: body.toString('utf8'), body });
      });
      res.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}
