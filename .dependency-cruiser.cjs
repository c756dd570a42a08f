/**
 * The daemon's arrows (docs/ARCHITECTURE.md): no import cycles, and no arrow from a lower layer
 * to a higher one. Checked in `npm test` (`npm run check:arrows`).
 */
const SRC = '^daemon/src/';
const layer = (name, mayNotImport, comment) => ({
  name: `${name}-stays-below`,
  comment,
  severity: 'error',
  from: { path: `${SRC}${name}/` },
  to: { path: `${SRC}(${mayNotImport.join('|')})(/|\\.ts$)` },
});

module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', from: {}, to: { circular: true } },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.daemon.json' },
    tsPreCompilationDeps: true,
    exclude: { path: '\\.test\\.ts$' },
  },
};
