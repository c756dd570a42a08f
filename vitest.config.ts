import { configDefaults, defineConfig } from 'vitest/config';

/**
 * BOXYARD_TEST_BACKEND picks where test daemons keep their state (test/global-setup.ts):
 * `embedded` (default) runs everything on SQLite and the data folder; `postgres` runs the API,
 * CLI and real-client tests again on PostgreSQL. Left out of that second pass: unit tests and the
 * browser UI (they do not depend on where state is kept), and what only the data folder has.
 */
const SCALE_OUT_LEAVES_OUT = [
  'daemon/**',
  // the renderer's unit tests; the API tests of daemon/src/ui/ beside them (box-list, sessions) stay in
  'test/ui/client.test.ts',
  'test/ui/relative-time.test.ts',
  'test/ui/upload-meter.test.ts',
  'test/desktop/**',
  'test/e2e/ui*.test.ts',
  'test/e2e/mirror-ui.test.ts',
  // backup, restore and check copy and verify a data folder's SQLite file and blob files; on
  // PostgreSQL they refuse (test/system/multi-daemon.test.ts), pg_dump and bucket versioning do the job.
  'test/data/backup.test.ts',
  'test/data/check.test.ts',
  // serves fixtures on SQLite and on a PostgreSQL cluster of its own, whatever the pass
  'test/upgrade/**',
  'test/data/large.test.ts',
  // the data folder's modes, its SQLite file damaged or replaced, its disk filling up
  'test/store/data-folder.test.ts',
  'test/data/health.test.ts',
  'test/blobs/disk-space.test.ts',
  'test/auth/two-factor-secrets.test.ts',
  // a mirror file resumed from its staged bytes, and a full data-folder disk: on S3 a file
  // interrupted starts over (docs/deploy.md, "What differs")
  'test/mirror/crash.test.ts',
  // the serve process's memory settings and accept queue, and the deploy files: the same on any backend
  'test/system/serve-process.test.ts',
  'test/system/deploy-files.test.ts',
  // HTTPS: the listener, certificates and clients over TLS are the same on any backend
  'test/tls/https.test.ts',
  'test/tls/trust.test.ts',
  'test/tls/plain-http.test.ts',
  'test/tls/key-files.test.ts',
  'test/tls/ca-constraints.test.ts',
  'test/e2e/vagrant-https.test.ts',
  // start PostgreSQL clusters of their own, in the first pass
  'test/store/schema-drift.test.ts',
  'test/system/multi-daemon.test.ts',
];

const scaleOut = (process.env.BOXYARD_TEST_BACKEND ?? 'embedded') !== 'embedded';

export default defineConfig({
  test: {
    include: ['daemon/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: scaleOut ? [...configDefaults.exclude, ...SCALE_OUT_LEAVES_OUT] : configDefaults.exclude,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // expect.poll waits for state that a daemon or a browser reaches (not a timing): as long as Playwright's waits
    // (15 s), not vitest's 1 s, which a busy machine overran while a sign-in hashed its password.
    expect: { poll: { timeout: 15_000 } },
    pool: 'forks',
    // Vitest's default is one worker fewer than the cores: one on CI's 2 cores. Most files wait on
    // daemons, clients and browsers rather than compute, so two at a time take less time.
    maxWorkers: 2,
    globalSetup: ['test/global-setup.ts'],
  },
});
