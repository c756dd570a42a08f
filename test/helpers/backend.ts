import { createHash } from 'node:crypto';
import { ensureDatabase } from './postgres';

/**
 * Where a test daemon keeps its state. By default the embedded default (the data folder). CI's
 * second pass (test/global-setup.ts) sets BOXYARD_TEST_PG_SERVER, a throwaway PostgreSQL cluster,
 * and BOXYARD_TEST_S3_URL, an S3 server's bucket: each data folder then gets a database and a key
 * prefix of its own, named after the folder, so a daemon restarted on the same folder (or a CLI
 * command run on it) finds the same state.
 */
export async function backendFor(dataDir: string): Promise<{ database?: string; blobs?: string }> {
  const server = process.env.BOXYARD_TEST_PG_SERVER;
  const bucket = process.env.BOXYARD_TEST_S3_URL;
  const name = `t_${createHash('sha256').update(dataDir).digest('hex').slice(0, 24)}`;
  const out: { database?: string; blobs?: string } = {};
  if (server) {
    await ensureDatabase(server, name);
    const url = new URL(server);
    url.pathname = `/${name}`;
    out.database = url.toString();
  }
  if (bucket) out.blobs = bucket.replace(/^(s3:\/\/[^/?]+\/)([^?]*)/, `$1$2${name}/`);
  return out;
}

/** The same as environment variables, for a daemon or a CLI command started as a process. */
export async function backendEnv(dataDir: string): Promise<Record<string, string>> {
  const b = await backendFor(dataDir);
  return {
    ...(b.database ? { BOXYARD_DATABASE_URL: b.database } : {}),
    ...(b.blobs ? { BOXYARD_BLOBS: b.blobs } : {}),
  };
}
