import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { backendEnv } from './backend';
import { freePort } from './ports';
import { ADMIN } from './daemon';

const BIN = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..', 'bin', 'boxyard.mjs');

export interface SpawnedDaemon {
  url: string;
  port: number;
  child: ChildProcess;
  /** The process id of the daemon (bin/boxyard.mjs is the daemon itself). */
  pid: number;
  /** Everything the process printed so far (stdout and stderr). */
  output(): string;
  /** Sends a signal and waits for the process to exit. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export { freePort };

/**
 * The real daemon as a child process (`node bin/boxyard.mjs serve`), for tests that must kill it:
 * crash safety, restarts on the same data folder. Resolves once it prints its listening line.
 * bin/boxyard.mjs is the daemon itself, so a signal sent here reaches it.
 */
export async function spawnDaemon(opts: {
  dataDir: string;
  port?: number;
  env?: Record<string, string>;
  prefix?: string[];
  args?: string[];
  /** Another build's bin/boxyard.mjs (test/upgrade/make-fixtures.ts runs earlier builds). */
  bin?: string;
}): Promise<SpawnedDaemon> {
  const port = opts.port ?? (await freePort());
  // `prefix` runs the daemon under another command (e.g. unshare, for a small disk of its own).
  const argv = [
    ...(opts.prefix ?? []),
    process.execPath,
    opts.bin ?? BIN,
    'serve',
    '--data',
    opts.dataDir,
    '--port',
    String(port),
    '--host',
    '127.0.0.1',
    ...(opts.args ?? []),
  ];
  const child = spawn(argv[0], argv.slice(1), {
    env: {
      ...process.env,
      ...(await backendEnv(opts.dataDir)),
      BOXYARD_ADMIN_USERNAME: ADMIN.username,
      BOXYARD_ADMIN_PASSWORD: ADMIN.password,
      BOXYARD_LOG_LEVEL: 'warn',
      BOXYARD_REQUESTS_PER_MINUTE: '0',
      BOXYARD_MAX_CONNECTIONS_PER_ADDRESS: '100000',
      ...opts.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`daemon did not start in time:\n${out}`)), 30_000);
    const onData = (b: Buffer) => {
      out += b.toString();
      if (out.includes('Boxyard listening on')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`daemon exited with ${code}:\n${out}`));
    });
  });
  // A process that prints has an id: only a process that could not be spawned has none.
  if (child.pid === undefined) throw new Error(`the daemon has no process id:\n${out}`);
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    child,
    pid: child.pid,
    output: () => out,
    async kill(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

/**
 * The daemon on a disk of its own that really fills up: its data folder is a 4 MiB tmpfs in a
 * private mount namespace (`unshare -rm`), with no free-space reserve (which would refuse a file
 * before it starts). The data folder is created here.
 */
export async function spawnDaemonOnTinyDisk(prefix: string): Promise<SpawnedDaemon & { dataDir: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  const d = await spawnDaemon({
    dataDir,
    env: { BOXYARD_DISK_RESERVE_MB: '0' },
    prefix: ['unshare', '-rm', 'sh', '-c', `mount -t tmpfs -o size=4m tmpfs '${dataDir}' && exec "$0" "$@"`],
  });
  return { ...d, dataDir };
}
