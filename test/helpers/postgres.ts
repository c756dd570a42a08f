import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './ports';

/**
 * A throwaway PostgreSQL cluster for tests: Debian's `postgresql` binaries, `initdb` and `pg_ctl`
 * in a temporary folder, listening on 127.0.0.1 only, durability off (it is thrown away). Run as
 * the `postgres` user when the tests run as root, since PostgreSQL refuses to run as root.
 */
export interface TestPostgres {
  /** A URL of the superuser on database `name`. */
  url(name: string): string;
  stop(): Promise<void>;
}

/** The folder of Debian's PostgreSQL binaries (initdb, pg_ctl, pg_dump, psql), newest version first. */
export function binDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length) return join(root, versions[0], 'bin');
  const found = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' }).stdout.trim();
  if (found) return join(found, '..');
  throw new Error(
    "PostgreSQL is not installed (no initdb): install Debian's `postgresql` package (apt-get install -y postgresql)",
  );
}

export async function startTestPostgres(): Promise<TestPostgres> {
  const bin = binDir();
  const dir = mkdtempSync(join(tmpdir(), 'boxyard-pg-'));
  const data = join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  const run = (cmd: string, args: string[]) => {
    const argv = asRoot ? ['runuser', '-u', 'postgres', '--', join(bin, cmd), ...args] : [join(bin, cmd), ...args];
    execFileSync(argv[0], argv.slice(1), { stdio: 'pipe' });
  };
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }));
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }));
    chownSync(dir, uid, gid);
  }
  chmodSync(dir, 0o700);
  const port = await freePort();
  try {
    run('initdb', ['-D', data, '-U', 'boxyard', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
    const options = `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=400 -c shared_buffers=64MB`;
    run('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', '-t', '60', 'start']);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    const e = err as { stderr?: Buffer; message: string };
    throw new Error(`could not start a test PostgreSQL cluster: ${e.stderr?.toString() || e.message}`);
  }
  return {
    url: (name) => `postgres://boxyard@127.0.0.1:${port}/${name}`,
    async stop() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** Creates database `name` unless it exists (several test files may ask for the same one). */
export async function ensureDatabase(serverUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (exists.rowCount) return;
    await client.query(`CREATE DATABASE "${name.replace(/"/g, '')}"`).catch((err: { code?: string }) => {
      if (err.code !== '42P04' && err.code !== '23505') throw err; // created meanwhile by another file
    });
  } finally {
    await client.end();
  }
}
