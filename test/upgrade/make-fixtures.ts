/**
 * Makes the upgrade fixtures (test/upgrade/fixtures/) from the builds that made each earlier schema: for every
 * build in BUILDS, a git worktree at its commit (node_modules shared; built as that commit built itself), the
 * daemon started as users start it, scenario.ts run against its API, the daemon stopped, and its data folder
 * (and on PostgreSQL the database, pg_dump'ed) packed with what was made. Run by hand when a migration lands:
 *
 *   npx tsx test/upgrade/make-fixtures.ts [SCHEMA…]
 *
 * upgrade.test.ts then serves each fixture with today's daemon. Needs git history (not a shallow clone) and
 * Debian's postgresql for the PostgreSQL builds.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HttpClient } from '../helpers/http';
import { staticServer } from '../helpers/mirror';
import { binDir, ensureDatabase, startTestPostgres, type TestPostgres } from '../helpers/postgres';
import { spawnDaemon } from '../helpers/spawn-daemon';
import { BUILDS, FIXTURES, fixtureName, type Build } from './builds';
import { boxBytes, makeScenario, type Made } from './scenario';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ADMIN = { username: 'admin', password: 'admin-long-password-1' };

function checkout(build: Build): string {
  const dir = join(tmpdir(), `boxyard-build-${build.commit}`);
  if (!existsSync(dir)) {
    execFileSync('git', ['worktree', 'add', '--detach', '-q', dir, build.commit], { cwd: ROOT });
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    // Later builds run their bundle (dist/); earlier ones ran their sources through tsx.
    if (existsSync(join(dir, 'scripts', 'build-daemon.mjs'))) {
      execFileSync(process.execPath, ['scripts/build-daemon.mjs'], { cwd: dir, stdio: 'inherit' });
    }
  }
  return dir;
}

function removeCheckout(dir: string): void {
  rmSync(join(dir, 'node_modules'), { force: true });
  execFileSync('git', ['worktree', 'remove', '--force', dir], { cwd: ROOT });
}

/** A catalog upstream on 127.0.0.1 with one box, acme/base 3.0.0, for the mirror the scenario makes. */
async function upstream() {
  const s = await staticServer();
  const file = boxBytes('acme/base/3.0.0');
  const checksum = createHash('sha256').update(file).digest('hex');
  s.route('/files/base.box', (_req, res) => res.end(file));
  s.route('/acme/base', (_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(
      JSON.stringify({
        name: 'acme/base',
        versions: [
          {
            version: '3.0.0',
            status: 'active',
            providers: [{ name: 'virtualbox', url: `${s.url}/files/base.box`, checksum_type: 'sha256', checksum }],
          },
        ],
      }),
    );
  });
  return s;
}

async function makeFixture(build: Build, pg: TestPostgres | undefined): Promise<Made> {
  const dir = checkout(build);
  const work = mkdtempSync(join(tmpdir(), 'boxyard-fixture-'));
  const data = join(work, 'data');
  mkdirSync(data);
  const database = pg ? `fixture_${build.schema}` : undefined;
  if (pg && database) await ensureDatabase(pg.url('postgres'), database);
  const up = await upstream();
  const daemon = await spawnDaemon({
    dataDir: data,
    bin: join(dir, 'bin', 'boxyard.mjs'),
    env: {
      BOXYARD_ADMIN_USERNAME: ADMIN.username,
      BOXYARD_ADMIN_PASSWORD: ADMIN.password,
      ...(pg && database ? { BOXYARD_DATABASE_URL: pg.url(database) } : {}),
    },
  });
  try {
    const made = await makeScenario({
      http: new HttpClient(daemon.url),
      admin: ADMIN,
      build: build.commit,
      schema: build.schema,
      upstreamUrl: up.url,
    });
    await daemon.kill('SIGTERM');
    writeFileSync(join(work, 'made.json'), `${JSON.stringify(made, null, 2)}\n`);
    if (pg && database) {
      execFileSync(join(binDir(), 'pg_dump'), ['--no-owner', '--file', join(work, 'database.sql'), pg.url(database)]);
    }
    mkdirSync(FIXTURES, { recursive: true });
    const contents = ['data', 'made.json', ...(pg ? ['database.sql'] : [])];
    execFileSync('tar', [
      '-czf',
      join(FIXTURES, fixtureName(build, pg ? 'postgres' : 'sqlite')),
      '-C',
      work,
      ...contents,
    ]);
    return made;
  } finally {
    await daemon.kill('SIGTERM');
    await up.close();
    rmSync(work, { recursive: true, force: true });
  }
}

const wanted = process.argv.slice(2);
// Named builds are made again; with none named, the builds whose fixtures are missing.
const missing = (b: Build) =>
  [
    !existsSync(join(FIXTURES, fixtureName(b, 'sqlite'))),
    b.postgres && !existsSync(join(FIXTURES, fixtureName(b, 'postgres'))),
  ].some(Boolean);
const builds = BUILDS.filter((b) => (wanted.length === 0 ? missing(b) : wanted.includes(b.schema)));
const pg = builds.some((b) => b.postgres) ? await startTestPostgres() : undefined;
try {
  for (const build of builds) {
    for (const on of build.postgres ? [undefined, pg] : [undefined]) {
      const made = await makeFixture(build, on);
      const missing = Object.entries(made.missing).map(([step, why]) => `\n    ${step}: ${why}`);
      console.log(
        `${build.schema} ${build.commit} ${on ? 'postgres' : 'sqlite'}: made${missing.join('') || ' everything'}`,
      );
    }
  }
} finally {
  await pg?.stop();
  for (const build of builds) {
    const dir = join(tmpdir(), `boxyard-build-${build.commit}`);
    if (existsSync(dir)) removeCheckout(dir);
  }
}
