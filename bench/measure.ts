/**
 * Shared helpers of the benchmark parts: processes (the daemon, nginx, baselines, clients), /proc
 * sampling, a small JSON client for setup requests. Every measured client and server runs in a
 * process of its own; this process only orchestrates and reads /proc.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import {
  closeSync,
  createWriteStream,
  fsyncSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { open } from 'node:fs/promises';
import { freePort } from '../test/helpers/spawn-daemon';
import { request } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';

export { freePort };

export const ROOT = join(fileURLToPath(new URL('.', import.meta.url)), '..');
export const BIN = join(ROOT, 'bin', 'boxyard.mjs');
export const ADMIN = { username: 'admin', password: 'bench-admin-password-1' };

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Seconds since `t0` (from `now()`). */
export const now = () => process.hrtime.bigint();
export const since = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e9;

/** Writes `mb` MiB of incompressible data. */
export async function makeFile(path: string, mb: number): Promise<void> {
  const chunk = randomBytes(1024 * 1024);
  const out = createWriteStream(path);
  for (let i = 0; i < mb; i++) if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
  await new Promise<void>((resolve, reject) => {
    out.once('error', reject);
    out.end(() => resolve());
  });
  // On disk before anything is measured: its writeback would otherwise share the disk with
  // whichever upload came first (always the daemon's).
  const fh = await open(path, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/**
 * Makes a file's content new, as every release's box is: the 8 bytes at `at` (default the first)
 * become `n`, on disk before anything reads it. A daemon meeting content it already stores would
 * skip or drop it, which a new box never lets it do.
 */
export function stamp(file: string, n: number, at = 0): void {
  const fd = openSync(file, 'r+');
  try {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(n));
    writeSync(fd, b, 0, 8, at);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Runs a command to completion; rejects with its stderr on a non-zero exit. */
export function run(
  cmd: string,
  args: string[],
  opts: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      cmd,
      args,
      { timeout: opts.timeoutMs ?? 300_000, maxBuffer: 64 * 1024 * 1024, env: opts.env ?? process.env },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`${cmd} ${args.join(' ')}: ${err.message}\n${stderr}`));
        else resolve(stdout);
      },
    );
  });
}

/** The status code of a GET (no body kept), or 0 when nothing answers. */
export function probe(url: string): Promise<number> {
  return new Promise((resolve) => {
    // Over HTTPS only to see that it answers: the bench's own CA is not this process's to trust.
    const req = (url.startsWith('https:') ? httpsRequest : request)(
      url,
      { agent: false, rejectUnauthorized: false },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', () => resolve(0));
    req.setTimeout(2_000, () => {
      req.destroy();
      resolve(0);
    });
    req.end();
  });
}

/** Polls `url` every `everyMs` until it answers `status`; the seconds it took. */
export async function waitFor(
  url: string,
  opts: { status?: number; timeoutMs?: number; everyMs?: number; child?: ChildProcess } = {},
): Promise<number> {
  const t0 = now();
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  while (Date.now() < deadline) {
    if (opts.child && opts.child.exitCode !== null)
      throw new Error(`${url}: the server exited with ${opts.child.exitCode}`);
    const s = await probe(url);
    if (s !== 0 && (opts.status === undefined || s === opts.status)) return since(t0);
    await sleep(opts.everyMs ?? 20);
  }
  throw new Error(`${url} did not answer in time`);
}

/** A child process with its output kept, stopped with `stop()` (SIGTERM, then SIGKILL). */
export interface Proc {
  child: ChildProcess;
  pid: number;
  output(): string;
  stop(): Promise<void>;
}

export function start(cmd: string, args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Proc {
  const child = spawn(cmd, args, {
    env: opts.env ?? process.env,
    cwd: opts.cwd ?? ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const keep = (b: Buffer) => {
    out = (out + b.toString()).slice(-20_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  if (child.pid === undefined) throw new Error(`${cmd} did not start (no pid): is it installed?`);
  return {
    child,
    pid: child.pid,
    output: () => out,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(t);
    },
  };
}

export interface Daemon extends Proc {
  url: string;
  /** The daemon's process: bin/boxyard.mjs, as spawned. */
  pid: number;
  /** Seconds from spawn to the first `/healthz` 200. */
  startSeconds: number;
}

/**
 * BENCH_CPU_PROF=DIR: every daemon and baseline writes a V8 CPU profile there when it stops (open in Chrome
 * DevTools).
 */
const cpuProfArgs = (): string[] =>
  process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];

/** `node bin/boxyard.mjs serve --data DIR` on a free port, as a user starts it; resolves at the first /healthz 200. */
export async function startDaemon(
  dataDir: string,
  opts: { env?: Record<string, string>; nodeArgs?: string[]; args?: string[] } = {},
): Promise<Daemon> {
  const port = await freePort();
  const t0 = now();
  const p = start(
    process.execPath,
    [
      ...cpuProfArgs(),
      ...(opts.nodeArgs ?? []),
      BIN,
      'serve',
      '--data',
      dataDir,
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      ...(opts.args ?? []),
    ],
    {
      env: {
        ...process.env,
        BOXYARD_ADMIN_USERNAME: ADMIN.username,
        BOXYARD_ADMIN_PASSWORD: ADMIN.password,
        BOXYARD_LOG_LEVEL: 'warn',
        BOXYARD_REQUESTS_PER_MINUTE: '0',
        BOXYARD_LOGIN_ATTEMPTS: '1000',
        ...opts.env,
      },
    },
  );
  const url = `${opts.args?.includes('--tls') ? 'https' : 'http'}://127.0.0.1:${port}`;
  try {
    await waitFor(`${url}/healthz`, { status: 200, child: p.child, everyMs: 5, timeoutMs: 60_000 });
  } catch (err) {
    await p.stop();
    throw new Error(`${String(err)}\n${p.output()}`);
  }
  return { ...p, url, startSeconds: since(t0) };
}

/**
 * A JSON request for setup (not measured); throws on a status ≥ 300. The answer is read as the `T` the caller names
 * (what it reads of it), unchecked: the measurements check what matters.
 */
export async function api<T = unknown>(
  base: string,
  method: string,
  path: string,
  opts: { token?: string; body?: unknown; jsonapi?: boolean; send?: typeof fetch } = {},
): Promise<T> {
  const type = opts.jsonapi ? 'application/vnd.api+json' : 'application/json';
  const headers: Record<string, string> = { accept: type };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.body !== undefined) headers['content-type'] = type;
  const res = await (opts.send ?? fetch)(base + path, {
    method,
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 500)}`);
  const answer: unknown = text ? JSON.parse(text) : undefined;
  return answer as T;
}

/** A token of the bench administrator. */
export async function adminToken(base: string, send?: typeof fetch): Promise<string> {
  const r = await api<{ token: string }>(base, 'POST', '/api/v1/authenticate', {
    send,
    body: { user: { login: ADMIN.username, password: ADMIN.password } },
  });
  return r.token;
}

/**
 * nginx with sendfile on, as it ships, serving `files` (URL path → file on disk) on `port`: the
 * baseline for downloads. `.json` paths go out as application/json. Resolves once the first path answers 200.
 */
export async function startNginx(
  dir: string,
  port: number,
  files: Record<string, string>,
  tls?: { cert: string; key: string },
): Promise<Proc> {
  const conf = join(dir, 'nginx.conf');
  // As root, nginx's workers would otherwise run as nobody and could not read the daemon's data folder.
  const user = process.getuid?.() === 0 ? 'user root;' : '';
  const locations = Object.entries(files)
    .map(
      ([path, file]) =>
        `location = ${path} { ${path.endsWith('.json') ? 'default_type application/json; ' : ''}alias ${file}; }`,
    )
    .join('\n    ');
  writeFileSync(
    conf,
    `daemon off; ${user} worker_processes 1; pid ${dir}/nginx.pid; error_log ${dir}/nginx-error.log;
events { worker_connections 64; }
http { access_log off; sendfile on; tcp_nopush on; client_body_temp_path ${dir}/ct; proxy_temp_path ${dir}/pt;
  fastcgi_temp_path ${dir}/ft; uwsgi_temp_path ${dir}/ut; scgi_temp_path ${dir}/st;
  server { listen 127.0.0.1:${port}${tls ? ` ssl; ssl_protocols TLSv1.2 TLSv1.3; ssl_certificate ${tls.cert}; ssl_certificate_key ${tls.key}` : ''}; default_type application/octet-stream;
    ${locations} } }
`,
  );
  const p = start('nginx', ['-c', conf, '-p', dir]);
  await waitFor(`${tls ? 'https' : 'http'}://127.0.0.1:${port}${Object.keys(files)[0]}`, {
    status: 200,
    child: p.child,
  });
  return p;
}

/**
 * A baseline server script from bench/baselines, in its own process; resolves once it listens.
 * With `tls`, it serves HTTPS with that certificate chain and key (env BASELINE_TLS_CERT/_KEY).
 */
export async function startBaseline(
  script: string,
  args: string[],
  tls?: { cert: string; key: string },
): Promise<Proc & { url: string }> {
  const port = await freePort();
  const env = tls ? { ...process.env, BASELINE_TLS_CERT: tls.cert, BASELINE_TLS_KEY: tls.key } : process.env;
  const p = start(
    process.execPath,
    [...cpuProfArgs(), join(ROOT, 'bench', 'baselines', script), String(port), ...args],
    { env },
  );
  const url = `${tls ? 'https' : 'http'}://127.0.0.1:${port}`;
  await waitFor(`${url}/healthz`, { child: p.child });
  return { ...p, url };
}
