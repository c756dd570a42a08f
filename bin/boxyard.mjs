#!/usr/bin/env node
// Runs the bundled daemon and CLI (dist/daemon/cli.mjs), which `npm run build` writes; `npm ci`
// and `npm install` build it through the `prepare` script. One process: `serve` sets glibc's
// malloc settings itself (daemon/src/lib/malloc-tuning.ts).
import { existsSync } from 'node:fs';

const bundle = new URL('../dist/daemon/cli.mjs', import.meta.url);
if (!existsSync(bundle)) {
  process.stderr.write('boxyard: dist/daemon/cli.mjs is missing; build it with: npm run build\n');
  process.exit(1);
}
await import(bundle.href);
