#!/usr/bin/env node
// Runs the bundled daemon and CLI (dist/daemon/cli.mjs), which `npm run build` writes; `npm ci`
// and `npm install` build it through the `prepare` script.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MALLOC_ENV } from './malloc-env.mjs';

const bundle = new URL('../dist/daemon/cli.mjs', import.meta.url);
if (!existsSync(bundle)) {
  process.stderr.write('boxyard: dist/daemon/cli.mjs is missing; build it with: npm run build\n');
  process.exit(1);
}

const needsMallocEnv = process.platform === 'linux' && process.argv[2] === 'serve' &&
  Object.keys(MALLOC_ENV).some((k) => process.env[k] === undefined);

if (needsMallocEnv) {
  // `serve` on Linux runs as a child with malloc-env.mjs's settings. Signals are passed on, the
  // exit status comes back, and the IPC channel closes if this process dies, even by SIGKILL: the
  // daemon then stops (daemon/src/main.ts), so it never outlives the command that started it.
  const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    env: { ...process.env, ...MALLOC_ENV },
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
  });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('error', (err) => {
    process.stderr.write(`boxyard: ${err.message}\n`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => {
    if (!signal) process.exit(code ?? 1);
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  });
} else {
  await import(bundle.href);
}
