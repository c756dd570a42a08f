import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { pack } from 'tar-stream';
import type { Server } from 'node:http';
import { stripVTControlCharacters } from 'node:util';

export interface VagrantResult {
  code: number | null;
  output: string;
}

/** Whether the `vagrant` CLI is on PATH (Debian's 2.3.4 in CI). */
export function vagrantInstalled(): boolean {
  return (
    spawnSync('vagrant', ['--version'], { stdio: 'ignore', env: { ...process.env, VAGRANT_CHECKPOINT_DISABLE: '1' } })
      .status === 0
  );
}

/** Runs a command to completion, feeding `input` on stdin; stdout and stderr are merged. */
export function run(
  cmd: string,
  args: string[],
  env: Record<string, string>,
  input?: string,
  timeoutMs = 90_000,
): Promise<VagrantResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout.on('data', (b: Buffer) => {
      output += b.toString();
    });
    child.stderr.on('data', (b: Buffer) => {
      output += b.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output: stripVTControlCharacters(output) });
    });
    child.stdin.end(input ?? '');
  });
}

/**
 * `vagrant cloud auth login` asks for the password through Ruby's `noecho`, which needs a TTY
 * (vagrant 2.3.4 raises UIExpectsTTY otherwise): run it under `script` to get a pseudo-terminal.
 */
export function runInTty(command: string, env: Record<string, string>, input: string): Promise<VagrantResult> {
  return run('script', ['-qec', command, '/dev/null'], env, input);
}

/**
 * A valid `.box`: gzipped tar holding metadata.json for the provider (and the architecture, when
 * given, as vagrant ≥ 2.4 boxes say it) and a random disk image.
 */
export async function makeBoxFile(
  path: string,
  provider = 'virtualbox',
  diskBytes = 256 * 1024,
  architecture?: string,
): Promise<Buffer> {
  const tar = pack();
  tar.entry({ name: 'metadata.json' }, JSON.stringify(architecture ? { provider, architecture } : { provider }));
  tar.entry({ name: 'box-disk.img' }, randomBytes(diskBytes));
  tar.finalize();
  const chunks: Buffer[] = [];
  for await (const c of tar) chunks.push(c as Buffer);
  const file = gzipSync(Buffer.concat(chunks));
  writeFileSync(path, file);
  return file;
}

/** A tar of `entries` in their order (a `.box` when one is metadata.json), gzipped unless `gzip` is false. */
export async function boxTar(entries: Array<[name: string, body: string | Buffer]>, gzip = true): Promise<Buffer> {
  const tar = pack();
  for (const [name, body] of entries) tar.entry({ name }, body);
  tar.finalize();
  const chunks: Buffer[] = [];
  for await (const c of tar) chunks.push(c as Buffer);
  return gzip ? gzipSync(Buffer.concat(chunks)) : Buffer.concat(chunks);
}

export interface SeenRequest {
  method: string;
  path: string;
  range?: string;
  authorized: boolean;
  status?: number;
}

/** Records every request the daemon's HTTP server receives, to check what the real client sent. */
export function recordRequests(server: Server): SeenRequest[] {
  const seen: SeenRequest[] = [];
  server.on('request', (req, res) => {
    const entry: SeenRequest = {
      method: req.method ?? '',
      path: (req.url ?? '').split('?')[0],
      range: req.headers.range,
      authorized: Boolean(
        req.headers.authorization || req.headers['x-atlas-token'] || (req.url ?? '').includes('access_token='),
      ),
    };
    seen.push(entry);
    res.on('finish', () => {
      entry.status = res.statusCode;
    });
  });
  return seen;
}
