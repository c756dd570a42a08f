import { buildDaemon } from '../scripts/build-daemon.mjs';
import { startTestPostgres } from './helpers/postgres';
import { startS3Server } from './helpers/s3-server';

/**
 * Tests that spawn bin/boxyard.mjs run the bundle: build it from the current sources first.
 * BOXYARD_TEST_BACKEND=postgres-s3: the API tests run on PostgreSQL and S3, a throwaway cluster and
 * an s3rver started here (test/helpers/backend.ts gives each data folder a database and a key
 * prefix of its own on them). `postgres` alone keeps box files in the data folder.
 */
export default async function setup(): Promise<() => Promise<void>> {
  await buildDaemon();
  const backend = process.env.BOXYARD_TEST_BACKEND ?? 'embedded';
  if (backend === 'embedded') return async () => undefined;
  if (backend !== 'postgres' && backend !== 'postgres-s3')
    throw new Error(`BOXYARD_TEST_BACKEND=${backend}: expected embedded, postgres or postgres-s3`);
  const cluster = await startTestPostgres();
  process.env.BOXYARD_TEST_PG_SERVER = cluster.url('postgres');
  const s3 =
    backend === 'postgres-s3'
      ? await startS3Server({ engine: 's3rver' }).catch(async (err: unknown) => {
          await cluster.stop();
          throw err;
        })
      : null;
  if (s3) {
    // Test workers inherit these: in-process daemons and spawned ones read them alike.
    process.env.BOXYARD_TEST_S3_URL = s3.url();
    Object.assign(process.env, s3.env);
  }
  return async () => {
    await s3?.close();
    await cluster.stop();
  };
}
