import { expect } from 'vitest';
import type { HttpClient } from './http';
import type { TestDaemon } from './daemon';

/** Creates (if needed) a version and a hosted provider (no url); returns the provider's API path. */
export async function hostedProvider(http: HttpClient, owner: string, box: string, version: string, opts: {
  api?: 'v1' | 'v2'; provider?: string; architecture?: string; checksum?: string; checksum_type?: string;
} = {}): Promise<string> {
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
  return api === 'v2' ? `${base}/provider/${name}/${opts.architecture ?? p.json.architecture}` : `${base}/provider/${name}`;
}

/** The provider row straight from the database (default architecture unless given). */
export async function providerRow(d: TestDaemon, box: string, version: string, architecture?: string, name = 'virtualbox') {
  let q = d.deps.db.selectFrom('box_providers').innerJoin('box_versions', 'box_versions.id', 'box_providers.version_id')
    .innerJoin('boxes', 'boxes.id', 'box_versions.box_id')
    .selectAll('box_providers')
    .where('boxes.name', '=', box).where('box_versions.version', '=', version).where('box_providers.name', '=', name);
  q = architecture ? q.where('box_providers.architecture', '=', architecture) : q.where('box_providers.default_architecture', '=', 1);
  return q.executeTakeFirstOrThrow();
}

/** Digests of every blob on disk. */
export async function storedBlobs(d: TestDaemon): Promise<string[]> {
  const out: string[] = [];
  for await (const b of d.deps.blobStore.list()) out.push(b.sha256);
  return out.sort();
}
