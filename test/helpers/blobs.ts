import { expect } from 'vitest';
import type { HttpClient } from './http';
import type { TestDaemon } from './daemon';
import type { BlobStore } from '../../daemon/src/blobs/blob-store';
import { FsBlobStore } from '../../daemon/src/blobs/fs-blob-store';
import { s3ClientFor } from '../../daemon/src/blobs/s3/bucket';
import { parseS3Location } from '../../daemon/src/blobs/s3/location';
import { S3BlobStore } from '../../daemon/src/blobs/s3/s3-blob-store';
import { backendFor } from './backend';

/** Creates (if needed) a version and a hosted provider (no url); returns the provider's API path. */
export async function hostedProvider(
  http: HttpClient,
  owner: string,
  box: string,
  version: string,
  opts: {
    api?: 'v1' | 'v2';
    provider?: string;
    architecture?: string;
    checksum?: string;
    checksum_type?: string;
  } = {},
): Promise<string> {
  const api = opts.api ?? 'v1';
  const base = `/api/${api}/box/${owner}/${box}/version/${version}`;
  if ((await http.get(base)).status === 404) {
    const v = await http.post(`/api/${api}/box/${owner}/${box}/versions`, { version: { version } });
    expect(v.status, v.text).toBe(200);
  }
  const name = opts.provider ?? 'virtualbox';
  const p = await http.post(`${base}/providers`, {
    provider: { name, architecture: opts.architecture, checksum: opts.checksum, checksum_type: opts.checksum_type },
  });
  expect(p.status, p.text).toBe(200);
  return api === 'v2'
    ? `${base}/provider/${name}/${opts.architecture ?? p.json.architecture}`
    : `${base}/provider/${name}`;
}

/** The provider row straight from the database (default architecture unless given). */
export async function providerRow(
  d: TestDaemon,
  box: string,
  version: string,
  architecture?: string,
  name = 'virtualbox',
) {
  let q = d.deps.db
    .selectFrom('box_providers')
    .innerJoin('box_versions', 'box_versions.id', 'box_providers.version_id')
    .innerJoin('boxes', 'boxes.id', 'box_versions.box_id')
    .selectAll('box_providers')
    .where('boxes.name', '=', box)
    .where('box_versions.version', '=', version)
    .where('box_providers.name', '=', name);
  q = architecture
    ? q.where('box_providers.architecture', '=', architecture)
    : q.where('box_providers.default_architecture', '=', 1);
  return q.executeTakeFirstOrThrow();
}

/** Digests of every blob the daemon stored (its data folder or its bucket). */
export async function storedBlobs(d: TestDaemon): Promise<string[]> {
  const out: string[] = [];
  for await (const b of d.deps.blobStore.list()) out.push(b.sha256);
  return out.sort();
}

/** The upload ids with bytes staged and not committed (a bucket stages no upload still streaming). */
export async function stagedUploads(d: TestDaemon): Promise<string[]> {
  const out: string[] = [];
  for await (const u of d.deps.blobStore.listStaged()) out.push(u.uploadId);
  return out.sort();
}

/**
 * What a data folder's daemon has stored, looked at from outside it (a killed daemon, another
 * process): its blob store as the test backend has it, the folder's blobs/ or its S3 prefix.
 */
async function withStore<T>(dataDir: string, fn: (store: BlobStore) => Promise<T>): Promise<T> {
  const { blobs } = await backendFor(dataDir);
  if (!blobs) return fn(new FsBlobStore(dataDir));
  const location = parseS3Location(blobs);
  const client = s3ClientFor(location);
  try {
    return await fn(new S3BlobStore(client, location));
  } finally {
    client.destroy();
  }
}

/** Whether box files go to a bucket in this test run (S3 stages no partial upload as an object). */
export const storesInBucket = async (dataDir: string): Promise<boolean> =>
  (await backendFor(dataDir)).blobs !== undefined;

/** The sha256 of every stored (committed) blob, sorted. */
export const storedBlobsIn = (dataDir: string): Promise<string[]> =>
  withStore(dataDir, async (s) => {
    const out: string[] = [];
    for await (const b of s.list()) out.push(b.sha256);
    return out.sort();
  });

/** The upload ids with bytes staged and not yet committed, sorted. */
export const stagedUploadsIn = (dataDir: string): Promise<string[]> =>
  withStore(dataDir, async (s) => {
    const out: string[] = [];
    for await (const u of s.listStaged()) out.push(u.uploadId);
    return out.sort();
  });
