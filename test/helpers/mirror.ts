import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { expect } from 'vitest';
import type { HttpClient } from './http';
import { rawPut } from './upload';

export const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/** Box → version → hosted provider → upload → release on a daemon, through its API. */
export async function publishHosted(
  http: HttpClient,
  owner: string,
  box: string,
  version: string,
  file: Buffer,
  opts: {
    provider?: string;
    architecture?: string;
    private?: boolean;
    release?: boolean;
  } = {},
) {
  const api = `/api/v2/box/${owner}/${box}`;
  if ((await http.get(api)).status === 404) {
    const b = await http.post('/api/v1/boxes', {
      box: { username: owner, name: box, is_private: opts.private ?? false, short_description: `${box} box` },
    });
    expect(b.status, b.text).toBe(200);
  }
  if ((await http.get(`${api}/version/${version}`)).status === 404) {
    expect(
      (await http.post(`${api}/versions`, { version: { version, description: `release ${version}` } })).status,
    ).toBe(200);
  }
  const provider = opts.provider ?? 'virtualbox';
  const arch = opts.architecture ?? 'amd64';
  const p = await http.post(`${api}/version/${version}/providers`, {
    provider: { name: provider, architecture: arch, url: null },
  });
  expect(p.status, p.text).toBe(200);
  const prep = await http.get(`${api}/version/${version}/provider/${provider}/${arch}/upload`);
  expect(prep.status, prep.text).toBe(200);
  expect((await rawPut(prep.json.upload_path, file, { 'content-length': String(file.length) })).status).toBe(200);
  if (opts.release !== false) expect((await http.put(`${api}/version/${version}/release`)).status).toBe(200);
}

export interface Job {
  id: string;
  state: string;
  message: string | null;
  error_code: string | null;
  bytes_done: number;
  bytes_total: number;
  files_done: number;
  files_total: number;
  published: Array<{ box: string; versions: string[] }>;
}

/** Polls a mirror job until it reaches one of `states` (bounded: 60 s). */
export async function waitForJob(
  http: HttpClient,
  jobId: string,
  states = ['done', 'failed', 'cancelled'],
): Promise<Job> {
  const until = Date.now() + 60_000;
  for (;;) {
    const r = await http.get(`/api/boxyard/mirror-jobs/${jobId}`);
    expect(r.status, r.text).toBe(200);
    if (states.includes(r.json.job.state)) return r.json.job as Job;
    if (Date.now() > until) throw new Error(`job ${jobId} still ${r.json.job.state}: ${r.json.job.message}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

/** Starts a mirror job and waits for it to finish. */
export async function mirrorOnce(
  http: HttpClient,
  mirror: Record<string, unknown>,
): Promise<{ mirrorId: string; job: Job }> {
  const r = await http.post('/api/boxyard/mirrors', { mirror });
  expect(r.status, r.text).toBe(201);
  return { mirrorId: r.json.mirror.id, job: await waitForJob(http, r.json.job.id) };
}

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface StaticServer {
  url: string;
  server: Server;
  /** TCP connections accepted so far. */
  connections(): number;
  /** Requests seen, as "METHOD /path". */
  requests: string[];
  route(path: string, handler: Handler): void;
  close(): Promise<void>;
}

/**
 * A plain HTTP server on 127.0.0.1 (or another loopback address) whose answers each test scripts (catalogs, files,
 * faults).
 */
export async function staticServer(host = '127.0.0.1'): Promise<StaticServer> {
  const routes = new Map<string, Handler>();
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  let connections = 0;
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    requests.push(`${req.method} ${path}`);
    const h = routes.get(path);
    if (h) h(req, res);
    else {
      res.statusCode = 404;
      res.end('{"errors":["not found"]}');
    }
  });
  server.on('connection', (s) => {
    connections++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, host, () => resolve()));
  const url = `http://${host}:${(server.address() as AddressInfo).port}`;
  return {
    url,
    server,
    requests,
    connections: () => connections,
    route: (path, handler) => {
      routes.set(path, handler);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Serves `body` with Content-Length, honouring `Range: bytes=N-` (206) like a file server. */
export function serveFile(body: Buffer): Handler {
  return (req, res) => {
    const m = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    const start = m ? Number(m[1]) : 0;
    res.statusCode = m ? 206 : 200;
    res.setHeader('content-length', String(body.length - start));
    if (m) res.setHeader('content-range', `bytes ${start}-${body.length - 1}/${body.length}`);
    res.end(req.method === 'HEAD' ? undefined : body.subarray(start));
  };
}

export const serveJson =
  (doc: unknown): Handler =>
  (_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(typeof doc === 'string' ? doc : JSON.stringify(doc));
  };

/**
 * A file that never finishes arriving: 1000 bytes every 50 ms of a declared 10 MB, to stop a job
 * while it downloads. `closed` counts downloads the daemon broke off.
 */
export function tricklingFile(): { handler: Handler; closed: () => number } {
  let closed = 0;
  const handler: Handler = (req, res) => {
    res.setHeader('content-length', '10000000');
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    const timer = setInterval(() => res.write(Buffer.alloc(1000, 7)), 50);
    res.on('close', () => {
      clearInterval(timer);
      closed++;
    });
  };
  return { handler, closed: () => closed };
}
