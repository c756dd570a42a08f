import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A command as a user pastes it on another machine: `bash -c` in a fresh, empty HOME (its working folder too), with
 * none of this process's environment but PATH (no VAGRANT_*, SSL_*, CURL_*, NODE_* settings that could trust the
 * daemon's CA by the back door). `VAGRANT_CHECKPOINT_DISABLE` and `CHECKPOINT_DISABLE` keep vagrant and Terraform
 * from asking HashiCorp for news: tests never contact another address.
 */
export interface Pasted {
  code: number | null;
  stdout: string;
  stderr: string;
}

export const freshHome = (): string => mkdtempSync(join(tmpdir(), 'boxyard-pasted-home-'));

const cleanEnv = (home: string): NodeJS.ProcessEnv => ({
  HOME: home,
  PATH: process.env.PATH,
  LANG: 'C.UTF-8',
  VAGRANT_CHECKPOINT_DISABLE: '1',
  CHECKPOINT_DISABLE: '1',
  VAGRANT_NO_COLOR: '1',
});

/** Runs the pasted text to its end (or `stopWhen` resolves: then it is stopped, its whole process group). */
export function paste(command: string, home: string, stopWhen?: Promise<unknown>): Promise<Pasted> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', command], { cwd: home, env: cleanEnv(home), detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => {
      stdout += b.toString();
    });
    child.stderr.on('data', (b: Buffer) => {
      stderr += b.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    void stopWhen?.finally(() => {
      if (child.exitCode === null && child.pid) process.kill(-child.pid, 'SIGTERM');
    });
  });
}
