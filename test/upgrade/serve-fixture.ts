import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli';
import { HttpClient } from '../helpers/http';
import { binDir, ensureDatabase, startTestPostgres, type TestPostgres } from '../helpers/postgres';
import { spawnDaemon } from '../helpers/spawn-daemon';
import { BUILDS, FIXTURES, fixtureName } from './builds';
import type { Made } from './scenario';
import { verifyMade } from './verify';

/**
 * Upgrades keep everything: a data folder (and from schema 016 a PostgreSQL database) made by the last build at
 * each earlier schema, through its API (make-fixtures.ts), is served by today's daemon, which migrates it at start;
 * every row the old build made is then checked through today's API (verify.ts), and on SQLite `boxyard check`
 * finds every row's file. The oldest fixture is the oldest build that runs: its accounts, tokens and two-factor
 * survive every migration since. One test file per database (sqlite.test.ts, postgres.test.ts), run side by side.
 */
export function upgradesOn(dialect: 'sqlite' | 'postgres'): void {
  describe(`upgrades from every earlier schema on ${dialect}`, () => {
    let pg: TestPostgres | undefined;
    const dirs: string[] = [];
    beforeAll(async () => {
      if (dialect === 'postgres') pg = await startTestPostgres();
    });
    afterAll(async () => {
      await pg?.stop();
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    });

    for (const build of BUILDS.filter((b) => dialect === 'sqlite' || b.postgres)) {
      it(`schema ${build.schema} (${build.commit})`, async () => {
        const archive = join(FIXTURES, fixtureName(build, dialect));
        expect(existsSync(archive), `${archive}: npx tsx test/upgrade/make-fixtures.ts ${build.schema}`).toBe(true);
        const work = mkdtempSync(join(tmpdir(), 'boxyard-upgrade-'));
        dirs.push(work);
        execFileSync('tar', ['-xzf', archive, '-C', work]);
        const made = JSON.parse(readFileSync(join(work, 'made.json'), 'utf8')) as Made;
        expect(made.schema).toBe(build.schema);
        const data = join(work, 'data');
        const env: Record<string, string> = {};
        if (pg) {
          const name = `upgrade_${build.schema}`;
          await ensureDatabase(pg.url('postgres'), name);
          const sql = join(work, 'database.sql');
          execFileSync(join(binDir(), 'psql'), ['-q', '-v', 'ON_ERROR_STOP=1', '-f', sql, pg.url(name)]);
          env.BOXYARD_DATABASE_URL = pg.url(name);
        }
        const daemon = await spawnDaemon({ dataDir: data, env });
        try {
          await verifyMade(new HttpClient(daemon.url), made);
        } finally {
          await daemon.kill('SIGTERM');
        }
        if (dialect === 'sqlite') {
          const check = await runCli(['check', '--data', data]);
          expect(check.stdout, check.stderr).toMatch(/no problems\n$/);
          expect(check.code).toBe(0);
        }
      });
    }
  });
}
