import { spawn, type ChildProcess } from 'node:child_process';
import { createReadStream, createWriteStream, readFileSync, writeFileSync, openSync, fsyncSync, closeSync } from 'node:fs';
import { request } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';

/** Seconds a promise took. */
export async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t0) / 1e9;
}

/** Writes `mb` MiB of incompressible data. */
export async function makeFile(path: string, mb: number): Promise<void> {
  const chunk = randomBytes(1024 * 1024);
  const out = createWriteStream(path);
  for (let i = 0; i < mb; i++) if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
  await new Promise<void>((resolve, reject) => { out.once('error', reject); out.end(() => resolve()); });
}

/** The baseline for uploads: a plain streamed copy on the same disk, fsynced like the blob store does. */
export async function diskCopy(from: string, to: string): Promise<void> {
  await pipeline(createReadStream(from), createWriteStream(to));
  const fd = openSync(to, 'r');
  fsyncSync(fd);
  closeSync(fd);
}

/** Samples a process's resident memory (MiB) every 50 ms; `stop()` gives the peak. */
export function rssSampler(pid: number) {
  let peak = 0;
  const read = () => {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (m) peak = Math.max(peak, Number(m[1]) / 1024);
    } catch { /* process gone */ }
  };
  read();
  const timer = setInterval(read, 50);
  return { stop: () => { clearInterval(timer); read(); return Math.round(peak); }, current: () => { read(); return Math.round(peak); } };
}

/** Streams a URL's body to nowhere; rejects on a non-2xx status. */
export function download(url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      if ((res.statusCode ?? 0) >= 300) return reject(new Error(`GET ${url}: ${res.statusCode}`));
      let n = 0;
      res.on('data', (c: Buffer) => { n += c.length; });
      res.on('end', () => resolve(n));
      res.on('error', reject);
    }).on('error', reject).end();
  });
}

/** Streams a file as a PUT body (Content-Length set, like curl in vagrant's upload). */
export function upload(url: string, file: string, size: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'PUT', headers: { 'content-length': String(size), 'content-type': 'application/octet-stream' } }, (res) => {
      res.resume();
      res.on('end', () => ((res.statusCode ?? 0) < 300 ? resolve(res.statusCode ?? 0) : reject(new Error(`PUT ${url}: ${res.statusCode}`))));
    });
    req.on('error', reject);
    createReadStream(file).pipe(req);
  });
}

/** nginx serving `root` on `port`, with sendfile as it ships; the baseline for downloads. `root` must be world-readable (workers run as nobody). */
export async function startNginx(dir: string, root: string, port: number): Promise<ChildProcess> {
  const conf = join(dir, 'nginx.conf');
  writeFileSync(conf, `daemon off; worker_processes 1; pid ${dir}/nginx.pid; error_log ${dir}/nginx-error.log;
events { worker_connections 64; }
http { access_log off; sendfile on; tcp_nopush on; client_body_temp_path ${dir}/ct; proxy_temp_path ${dir}/pt;
  fastcgi_temp_path ${dir}/ft; uwsgi_temp_path ${dir}/ut; scgi_temp_path ${dir}/st;
  server { listen 127.0.0.1:${port}; root ${root}; default_type application/octet-stream; } }
`);
  const child = spawn('nginx', ['-c', conf, '-p', dir], { stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    try { await download(`http://127.0.0.1:${port}/nonexistent`); } catch (e) { if (/: \d{3}$/.test(String(e))) return child; }
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill();
  throw new Error('nginx did not start');
}
