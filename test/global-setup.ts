import { buildDaemon } from '../scripts/build-daemon.mjs';
import { startTestPostgres } from './helpers/postgres';

/**
 * Tests that spawn bin/boxyard.mjs run the bundle: build it from the current sources first.
 * BOXYARD_TEST_BACKEND=postgres: the API tests run on PostgreSQL, a throwaway cluster started here
 * (test/helpers/backend.ts gives each data folder a database of its own on it).
 */
export default async function setup(): Promise<() => Promise<void>> {
  await buildDaemon();
  const backend = process.env.BOXYARD_TEST_BACKEND ?? 'embedded';
  if (backend === 'embedded') return async () => undefined;
  if (backend !== 'postgres') throw new Error(`BOXYARD_TEST_BACKEND=${backend}: expected embedded or postgres`);
  const cluster = await startTestPostgres();
  process.env.BOXYARD_TEST_PG_SERVER = cluster.url('postgres');
  return () => cluster.stop();
}
