import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { backendEnv } from './backend';

const BIN = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..', 'bin', 'boxyard.mjs');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the real CLI (`node bin/boxyard.mjs …`) to its end (killed after 60 s); stdout is a pipe,
 * not a TTY. `onStart` gets the process id (to watch its memory).
 */
export async function runCli(
  args: string[],
  env: Record<string, string> = {},
  onStart?: (pid: number) => void,
): Promise<CliResult> {
  // A command on a data folder uses the same database as a test daemon on that folder.
  const i = args.indexOf('--data');
  const dataDir = i >= 0 ? args[i + 1] : env.BOXYARD_DATA;
  const backend = dataDir ? await backendEnv(dataDir) : {};
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, ...backend, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (child.pid !== undefined) onStart?.(child.pid);
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.stdout.on('data', (b: Buffer) => {
      stdout += b.toString();
    });
    child.stderr.on('data', (b: Buffer) => {
      stderr += b.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
