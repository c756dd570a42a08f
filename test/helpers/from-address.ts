import { request } from 'node:http';
import type { ParsedJson } from './http';
import { PasswordHasher, scrypt, type DeriveKey, type ScryptParams } from '../../daemon/src/lib/crypto';

export interface AddressedResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  json: ParsedJson;
}

/**
 * A JSON POST from a chosen loopback address (127.0.0.2, 127.0.0.3…): the daemon sees each as
 * another client machine, as per-address limits count them. Linux answers all of 127.0.0.0/8.
 */
export function postFrom(
  baseUrl: string,
  localAddress: string,
  path: string,
  body: unknown,
  token?: string,
): Promise<AddressedResponse> {
  const url = new URL(path, baseUrl);
  const data = Buffer.from(JSON.stringify(body));
  const headers: Record<string, string | number> = {
    'content-type': 'application/json',
    accept: 'application/json',
    'content-length': data.length,
  };
  if (token) headers.authorization = `Bearer ${token}`;
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', localAddress, headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = text ? JSON.parse(text) : undefined;
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, json });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

/** The daemon's real password hasher, recording the parameters of every key it derives. */
export function countingHasher(): { hasher: PasswordHasher; derived: ScryptParams[] } {
  const derived: ScryptParams[] = [];
  const derive: DeriveKey = (password, salt, params) => {
    derived.push({ ...params });
    return scrypt(password, salt, params);
  };
  return { hasher: new PasswordHasher({ derive }), derived };
}
