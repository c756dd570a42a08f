import { createHash } from 'node:crypto';
import { ensureDatabase } from './postgres';

/**
 * Where a test daemon keeps its state. By default the embedded default (the data folder). CI's
 * second pass sets BOXYARD_TEST_PG_SERVER (test/global-setup.ts starts a throwaway cluster): each
 * data folder then gets a PostgreSQL database of its own, named after the folder, so a daemon
 * restarted on the same folder finds the same database.
 */
export async function backendFor(dataDir: string): Promise<{ database?: string }> {
  const server = process.env.BOXYARD_TEST_PG_SERVER;
  if (!server) return {};
  const name = `t_${createHash('sha256').update(dataDir).digest('hex').slice(0, 24)}`;
  await ensureDatabase(server, name);
  const url = new URL(server);
  url.pathname = `/${name}`;
  return { database: url.toString() };
}

/** The same as environment variables, for a daemon started as a process. */
export async function backendEnv(dataDir: string): Promise<Record<string, string>> {
  const b = await backendFor(dataDir);
  return b.database ? { BOXYARD_DATABASE_URL: b.database } : {};
}
