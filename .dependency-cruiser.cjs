/**
 * The daemon's arrows (docs/ARCHITECTURE.md): no import cycles, and no arrow from a lower layer
 * to a higher one. Checked in `npm test` (`npm run check:arrows`).
 *
 * Layers, lowest first. A folder may import only the folders listed as below it; the top-level
 * files (app.ts, deps.ts, tfc-*.ts, cli.ts, main.ts: the wiring) import anything, and a folder may
 * import only their types; config.ts and version.ts anyone may import. Where a lower folder needs
 * something of a higher one, it declares the interface (blobs/registry-port.ts, workspaces'
 * PoolChoice, orgs' creation hooks) and the wiring passes the implementation in.
 */
const SRC = '^daemon/src/';
const FOLDERS = [
  'contract',
  'lib',
  'store',
  'http',
  'tls',
  'auth',
  'orgs',
  'workspaces',
  'pools',
  'agents',
  'blobs',
  'registry',
  'mirror',
  'ui',
  'data',
];
const BELOW = {
  contract: [],
  lib: ['contract'],
  store: ['lib', 'contract'],
  http: ['store', 'lib', 'contract'],
  // HTTPS: the certificate sources and the listener.
  tls: ['http', 'store', 'lib', 'contract'],
  auth: ['tls', 'http', 'store', 'lib', 'contract'],
  orgs: ['auth', 'tls', 'http', 'store', 'lib', 'contract'],
  workspaces: ['orgs', 'auth', 'tls', 'http', 'store', 'lib', 'contract'],
  pools: ['workspaces', 'orgs', 'auth', 'tls', 'http', 'store', 'lib', 'contract'],
  agents: ['pools', 'workspaces', 'orgs', 'auth', 'tls', 'http', 'store', 'lib', 'contract'],
  blobs: ['auth', 'tls', 'http', 'store', 'lib', 'contract'],
  registry: ['blobs', 'orgs', 'auth', 'tls', 'http', 'store', 'lib', 'contract'],
  mirror: ['registry', 'blobs', 'orgs', 'auth', 'tls', 'http', 'store', 'lib', 'contract'],
  ui: ['mirror', 'registry', 'blobs', 'orgs', 'auth', 'tls', 'http', 'store', 'lib', 'contract'],
  data: ['mirror', 'registry', 'blobs', 'orgs', 'auth', 'tls', 'http', 'store', 'lib', 'contract'],
};

const layer = (name) => ({
  name: `${name}-stays-below`,
  comment: `${name}/ may import only ${BELOW[name].join(', ') || 'itself'} (docs/ARCHITECTURE.md)`,
  severity: 'error',
  from: {
    path: `${SRC}${name}/`,
    // The one exception: the Kysely type of the whole database is the sum of every feature's
    // tables.ts (types only, no code), as the migrations are the sum of their tables.
    pathNot: `${SRC}store/schema\\.ts$`,
  },
  to: { path: `${SRC}(${FOLDERS.filter((f) => f !== name && !BELOW[name].includes(f)).join('|')})/` },
});

/** The wiring stands over every folder: a folder may use its types (a command's `Deps`), never its code. */
const wiringOnTop = {
  name: 'wiring-on-top',
  comment: 'a folder may import only types from the wiring (app.ts, deps.ts, tfc-*.ts, cli.ts, main.ts)',
  severity: 'error',
  from: { path: `${SRC}[^/]+/` },
  to: { path: `${SRC}(app|deps|tfc-[^/]+|cli|main)\\.ts$`, dependencyTypesNot: ['type-only'] },
};

module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', from: {}, to: { circular: true } },
    ...FOLDERS.map(layer),
    wiringOnTop,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.daemon.json' },
    tsPreCompilationDeps: true,
    exclude: { path: '\\.test\\.ts$' },
  },
};
