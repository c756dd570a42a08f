import { createHash, randomBytes } from 'node:crypto';
import type { ParsedJson } from './http';
import { rawPut } from './upload';

/**
 * The HTTP framing of clients that cannot be installed here, as read in their source (see
 * test/clients/gem.test.ts and test/clients/packer.test.ts for the files): exact headers and body
 * encodings, nothing more.
 */

export interface Reply {
  status: number;
  text: string;
  json: ParsedJson;
}

async function send(url: string, method: string, headers: Record<string, string>, body?: string): Promise<Reply> {
  const res = await fetch(url, { method, headers, body });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, text, json };
}

/**
 * Packer's VagrantCloudClient: `BaseURL/path` with BaseURL = vagrant_cloud_url (default
 * https://vagrantcloud.com/api/v2). newRequest() adds `Content-Type: application/json` and
 * `Authorization: Bearer` to every request, bodies or not; no Accept header.
 */
export function packerClient(base: string, token: string) {
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
  return {
    get: (path: string) => send(`${base}/api/v2/${path}`, 'GET', headers),
    post: (path: string, body: unknown) => send(`${base}/api/v2/${path}`, 'POST', headers, `${JSON.stringify(body)}\n`),
    put: (path: string) => send(`${base}/api/v2/${path}`, 'PUT', headers),
    delete: (path: string) => send(`${base}/api/v2/${path}`, 'DELETE', headers),
    /** Callback(): PUT to the callback URL exactly as given, through newRequest (JSON type + Bearer), no body. */
    callback: (url: string) => send(url, 'PUT', headers),
    /** Upload() (no_direct_upload): the box file through newRequest, so typed application/json, with Bearer. */
    upload: (url: string, file: Buffer) => rawPut(url, file, { ...headers, 'content-length': String(file.length) }),
    /** DirectUpload(): plain http.NewRequest: no Content-Type, no auth, Content-Length = file size. */
    directUpload: (url: string, file: Buffer) => rawPut(url, file, { 'content-length': String(file.length) }),
  };
}
export type Packer = ReturnType<typeof packerClient>;

/**
 * The gem ≥ 3.1 Client#request: Excon connection with `Accept` and `Content-Type:
 * application/json`, Bearer auth and `X-Request-Id` on every request; paths get `/api/v2` unless
 * already prefixed (token create/delete and 2FA go to /api/v1). Accepts 200, 201, 204. Params
 * with the Data::Nil default are dropped, real nils are sent as null.
 */
export function gemClient(base: string, token: string) {
  const headers = () => ({
    accept: 'application/json',
    'content-type': 'application/json',
    authorization: `Bearer ${token}`,
    'x-request-id': crypto.randomUUID(),
  });
  const url = (path: string) => `${base}${path.startsWith('/api/') ? path : `/api/v2${path}`}`;
  return {
    get: (path: string) => send(url(path), 'GET', headers()),
    post: (path: string, body: unknown) => send(url(path), 'POST', headers(), JSON.stringify(body)),
    put: (path: string, body?: unknown) =>
      send(url(path), 'PUT', headers(), body === undefined ? undefined : JSON.stringify(body)),
    delete: (path: string) => send(url(path), 'DELETE', headers()),
  };
}
export type Gem = ReturnType<typeof gemClient>;
export const GEM_OK = [200, 201, 204];

/** Keys the gem's models know (data.rb: `new` raises on others, `load` drops them). */
export const BOX_KEYS = [
  'name',
  'username',
  'tag',
  'private',
  'downloads',
  'created_at',
  'updated_at',
  'short_description',
  'description',
  'description_html',
  'description_markdown',
  'current_version',
  'versions',
];

/**
 * How vagrant ≥ 2.4 picks an entry of a provider name from the catalog: the host's architecture
 * if listed, else the entry flagged `default_architecture` (CLIENTS.md §1; Vagrant::BoxMetadata
 * reads `architecture` and `default_architecture` of each provider).
 */
export function pickProvider(
  providers: { name: string; architecture: string; default_architecture: boolean }[],
  name: string,
  hostArch: string,
) {
  const named = providers.filter((p) => p.name === name);
  return named.find((p) => p.architecture === hostArch) ?? named.find((p) => p.default_architecture);
}

export const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
/** Bytes that look like a gzipped box (the magic number, then noise). */
export const boxBytes = (n = 64 * 1024): Buffer => Buffer.concat([Buffer.from('\x1f\x8b'), randomBytes(n)]);
