import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { boxJson, boxSummaryJson, catalogJson, digest, visibleVersions } from './hcp-upstream-boxes';

/**
 * A local fake of HashiCorp's HCP Vagrant (Vagrant Cloud) registry, for mirroring tests: the box
 * API, a namespace's box list, the catalog vagrant reads, and download URLs that redirect to a
 * second server standing in for the presigned object storage. The registry listens on 127.0.0.1,
 * the storage on 127.0.0.2 (HCP_STORAGE_HOST): a daemon reaches the storage only once an
 * administrator allows that host (allowHcpStorage), as a bucket on a lab's own network would need;
 * the real one is on a public address.
 */
export const HCP_STORAGE_HOST = '127.0.0.2';

/** Lets the daemon reach the stand-in storage: what `mirror_allowed_hosts` is for (a public bucket needs nothing). */
export async function allowHcpStorage(admin: {
  put(path: string, body: unknown): Promise<{ status: number; text: string }>;
}): Promise<void> {
  const r = await admin.put('/api/boxyard/settings', { settings: { mirror_allowed_hosts: [HCP_STORAGE_HOST] } });
  if (r.status !== 200) throw new Error(`allowing ${HCP_STORAGE_HOST} failed: ${r.status} ${r.text}`);
}

export interface HcpProvider {
  name: string;
  architecture: string;
  default_architecture?: boolean;
  file: Buffer;
  /** Default sha256; the checksum is computed from `file`. */
  checksum_type?: 'md5' | 'sha1' | 'sha256' | 'sha384' | 'sha512';
}

export interface HcpVersion {
  version: string;
  status: 'active' | 'revoked' | 'unreleased';
  /** Markdown. */
  description: string;
  providers: HcpProvider[];
}

export interface HcpBox {
  org: string;
  name: string;
  private: boolean;
  short_description: string;
  /** Markdown. */
  description: string;
  versions: HcpVersion[];
  /** Listed to the token holder, but 403 to it (404 anonymously) everywhere else. */
  hiddenFromToken?: boolean;
}

export interface HcpUpstream {
  /** http://127.0.0.1:PORT: the registry (API, catalog, download URLs). */
  url: string;
  /** http://127.0.0.2:PORT2: the "presigned" object storage downloads redirect to. */
  storageUrl: string;
  /** The token the registry accepts. */
  token: string;
  /** Live and mutable: tests edit descriptions and statuses between mirror runs. */
  boxes: HcpBox[];
  /** Every request either server saw; `path` without the query. */
  requests: Array<{ server: 'registry' | 'storage'; method: string; path: string; authorization: string | undefined }>;
  stop(): Promise<void>;
}

type Handler = (req: IncomingMessage, res: ServerResponse, url: URL) => void;

const NOT_FOUND = { errors: ['Resource not found!'], success: false };
const FORBIDDEN = { errors: ['You are not authorized to access this resource'], success: false };
const INVALID_TOKEN = { errors: ['Invalid authentication token'], success: false };

function send(req: IncomingMessage, res: ServerResponse, status: number, body: string, type: string): void {
  res.statusCode = status;
  res.setHeader('content-type', type);
  res.setHeader('content-length', String(Buffer.byteLength(body)));
  res.end(req.method === 'HEAD' ? undefined : body);
}

const json = (req: IncomingMessage, res: ServerResponse, status: number, doc: unknown) =>
  send(req, res, status, JSON.stringify(doc), 'application/json; charset=utf-8');

const s3Error = (req: IncomingMessage, res: ServerResponse, status: number, code: string, message: string) =>
  send(req, res, status, `<Error><Code>${code}</Code><Message>${message}</Message></Error>`, 'application/xml');

/** A server on 127.0.0.1, port 0, that records each request and destroys open sockets on close. */
async function listen(
  name: 'registry' | 'storage',
  requests: HcpUpstream['requests'],
  handler: Handler,
  host = '127.0.0.1',
) {
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    requests.push({
      server: name,
      method: req.method ?? '',
      path: url.pathname,
      authorization: req.headers.authorization,
    });
    try {
      handler(req, res, url);
    } catch (err) {
      if (!res.headersSent) json(req, res, 500, { errors: [String(err)], success: false });
      else res.destroy();
    }
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, host, () => resolve()));
  return {
    url: `http://${host}:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** `Bearer TOKEN`, or HCP's composite `Bearer VCTOKEN;HCPTOKEN` with either half the token. */
function authOf(header: string | undefined, token: string): 'anonymous' | 'good' | 'bad' {
  if (header === undefined) return 'anonymous';
  const m = /^Bearer\s+(.*)$/i.exec(header.trim());
  return m?.[1].split(';').some((t) => t.trim() === token) ? 'good' : 'bad';
}

/**
 * What `GET /api/{v1,v2}/authenticate` answers, per API: `token` (the default) 200 to the token and 401 to any other,
 * or a fixed status (404: a server without that API; 401, 403: a refusal with HCP's words).
 */
export type AuthenticateAnswer = 'token' | 401 | 403 | 404;

export async function startHcpUpstream(opts: {
  token: string;
  boxes: HcpBox[];
  authenticate?: Partial<Record<'v1' | 'v2', AuthenticateAnswer>>;
}): Promise<HcpUpstream> {
  const { token, boxes } = opts;
  const fixed: Record<number, unknown> = { 401: INVALID_TOKEN, 403: FORBIDDEN, 404: NOT_FOUND };
  const at = new Date().toISOString();
  const requests: HcpUpstream['requests'] = [];
  let registryUrl = ''; // known once the registry listens, before its first request

  /** The box, or the status (and body) HCP answers a caller who may not see it. */
  const lookup = (org: string, name: string, authed: boolean): HcpBox | [number, unknown] => {
    const box = boxes.find((b) => b.org === org && b.name === name);
    if (!box) return [404, NOT_FOUND];
    if (box.hiddenFromToken) return authed ? [403, FORBIDDEN] : [404, NOT_FOUND];
    if (box.private && !authed) return [404, NOT_FOUND];
    return box;
  };

  const storage = await listen(
    'storage',
    requests,
    (req, res, url) => {
      // S3 refuses a presigned URL sent with an Authorization header as well.
      if (req.headers.authorization !== undefined)
        return s3Error(req, res, 400, 'InvalidArgument', 'Only one auth mechanism allowed');
      if (req.method !== 'GET' && req.method !== 'HEAD')
        return s3Error(req, res, 405, 'MethodNotAllowed', 'The specified method is not allowed against this resource.');
      if (!url.searchParams.get('X-Amz-Signature')) return s3Error(req, res, 403, 'AccessDenied', 'Access Denied');
      const sha = /^\/blobs\/([0-9a-f]{64})$/.exec(url.pathname)?.[1];
      const file =
        sha && boxes.flatMap((b) => b.versions.flatMap((v) => v.providers)).find((p) => digest(p.file) === sha)?.file;
      if (!file) return s3Error(req, res, 404, 'NoSuchKey', 'The specified key does not exist.');
      res.setHeader('accept-ranges', 'bytes');
      res.setHeader('content-type', 'application/octet-stream');
      const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
      let start = 0;
      let end = file.length - 1;
      if (range) {
        start = Number(range[1]);
        end = range[2] ? Math.min(Number(range[2]), file.length - 1) : file.length - 1;
        if (start >= file.length || end < start) {
          res.setHeader('content-range', `bytes */${file.length}`);
          return s3Error(req, res, 416, 'InvalidRange', 'The requested range is not satisfiable');
        }
        res.setHeader('content-range', `bytes ${start}-${end}/${file.length}`);
      }
      res.statusCode = range ? 206 : 200;
      res.setHeader('content-length', String(end - start + 1));
      res.end(req.method === 'HEAD' ? undefined : file.subarray(start, end + 1));
    },
    HCP_STORAGE_HOST,
  );

  const registry = await listen('registry', requests, (req, res, url) => {
    const auth = authOf(req.headers.authorization, token);
    if (auth === 'bad') return json(req, res, 401, INVALID_TOKEN);
    const authed = auth === 'good';
    if (req.method !== 'GET' && req.method !== 'HEAD') return json(req, res, 404, NOT_FOUND);
    let parts: string[];
    try {
      parts = url.pathname.split('/').slice(1).map(decodeURIComponent);
    } catch {
      return json(req, res, 404, NOT_FOUND);
    }
    const [first, second, ...rest] = parts;

    if (first === 'api' && (second === 'v1' || second === 'v2')) {
      const links = { url: registryUrl, api: second, at } as const;
      if (rest.length === 1 && rest[0] === 'authenticate') {
        const answer = opts.authenticate?.[second] ?? 'token';
        if (answer !== 'token') return json(req, res, answer, fixed[answer]);
        return authed ? json(req, res, 200, { user: { username: 'hcp-user' } }) : json(req, res, 401, INVALID_TOKEN);
      }
      if (rest.length === 2 && rest[0] === 'user') {
        const own = boxes.filter((b) => b.org === rest[1]);
        if (own.length === 0) return json(req, res, 404, NOT_FOUND);
        const seen = own.filter((b) => authed || (!b.private && !b.hiddenFromToken));
        return json(req, res, 200, {
          username: rest[1],
          avatar_url: null,
          profile_html: '',
          profile_markdown: '',
          boxes: seen.map((b) => boxSummaryJson(b, links)),
        });
      }
      if (rest.length === 3 && rest[0] === 'box') {
        const box = lookup(rest[1], rest[2], authed);
        return Array.isArray(box) ? json(req, res, box[0], box[1]) : json(req, res, 200, boxJson(box, authed, links));
      }
      return json(req, res, 404, NOT_FOUND);
    }

    // The catalog vagrant reads: GET /:org/:box with Accept: application/json.
    if (parts.length === 2) {
      const box = lookup(first, second, authed);
      return Array.isArray(box) ? json(req, res, box[0], box[1]) : json(req, res, 200, catalogJson(box, registryUrl));
    }

    // /:org/boxes/:box/versions/:v/providers/:p/:arch/vagrant.box → a presigned storage URL.
    const [, boxes_, name, versions_, version, providers_, provider, arch, file] = parts;
    if (
      parts.length === 9 &&
      boxes_ === 'boxes' &&
      versions_ === 'versions' &&
      providers_ === 'providers' &&
      file === 'vagrant.box'
    ) {
      const box = lookup(first, name, authed);
      if (Array.isArray(box)) return json(req, res, box[0], box[1]);
      const v = visibleVersions(box, authed).find((x) => x.version === version);
      const p = v?.providers.find((x) => x.name === provider && x.architecture === arch);
      if (!p) return json(req, res, 404, NOT_FOUND);
      const signature = randomBytes(32).toString('hex');
      res.statusCode = 302;
      res.setHeader(
        'location',
        `${storage.url}/blobs/${digest(p.file)}?X-Amz-Signature=${signature}&X-Amz-Expires=300`,
      );
      res.setHeader('content-length', '0');
      return void res.end();
    }
    return json(req, res, 404, NOT_FOUND);
  });
  registryUrl = registry.url;

  return {
    url: registry.url,
    storageUrl: storage.url,
    token,
    boxes,
    requests,
    stop: async () => {
      await Promise.all([registry.close(), storage.close()]);
    },
  };
}
