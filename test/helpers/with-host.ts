import { request } from 'node:http';
import type { ParsedJson } from './http';

export interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: ParsedJson;
}

/** A request with a chosen Host header (fetch() will not send one). */
export function withHost(
  url: string,
  host: string,
  opts: { method?: string; path?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<Raw> {
  const u = new URL(url);
  const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        method: opts.method ?? 'GET',
        path: opts.path ?? '/',
        headers: {
          host,
          accept: 'application/json',
          ...(body ? { 'content-type': 'application/json' } : {}),
          ...opts.headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          text += c;
        });
        res.on('end', () => {
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
