// Bundles the daemon and CLI (daemon/src/cli.ts) into dist/daemon/cli.mjs (and chunks/) with esbuild, so nothing
// is transpiled at run time. better-sqlite3 stays outside: it is a native module, rebuilt for
// Electron in the desktop package. Migrations and the UI are read from the package at run time.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** What every bundle of the daemon's code shares. */
const common = {
  absWorkingDir: root,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  // Bundled CommonJS dependencies call require() and read __filename (write-file-atomic names its
  // temporary files from it): give the ES module both.
  banner: {
    js: "import { createRequire as __boxyardRequire } from 'node:module'; const require = __boxyardRequire(import.meta.url); const __filename = import.meta.filename;",
  },
  // Without comments or spacing, and ASCII only (escaped): V8 keeps a bundle's source text in the
  // heap for lazy compilation, as two bytes a character once any character is not Latin-1 (a
  // dependency's comment was enough), which cost ~5 MiB of resident memory. Names stay as
  // written, so stack traces read as they do in the source; cli.mjs.map maps lines back.
  minifyWhitespace: true,
  minifySyntax: true,
  charset: 'ascii',
  legalComments: 'none',
  logLevel: 'warning',
};

export async function buildDaemon() {
  // `boxyard agent` alone, as one file for machines without Boxyard (Node >= 20 only): the daemon serves it at
  // /boxyard-agent.mjs (daemon/src/agents/program-route.ts).
  const agent = build({
    ...common,
    entryPoints: ['daemon/src/agents/program.ts'],
    outfile: 'dist/agent/boxyard-agent.mjs',
  });
  await build({
    ...common,
    entryPoints: ['daemon/src/cli.ts'],
    outdir: 'dist/daemon',
    // The PostgreSQL driver and the AWS SDK are imported only when the daemon is told to use them
    // (deps.ts, blobs/build.ts): chunks of their own, never read by the embedded default, which
    // otherwise spent most of its start compiling them and kept their source in memory.
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    outExtension: { '.js': '.mjs' },
    external: ['better-sqlite3', 'koffi'],
    sourcemap: 'linked',
  });
  await agent;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildDaemon();
