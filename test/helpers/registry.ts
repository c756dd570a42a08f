import { expect } from 'vitest';
import type { HttpClient } from './http';
import type { TestDaemon } from './daemon';

/** Creates a box through the API and checks it worked. */
export async function createBox(
  http: HttpClient,
  owner: string,
  name: string,
  opts: { private?: boolean; short?: string } = {},
) {
  const r = await http.post('/api/v1/boxes', {
    box: { username: owner, name, is_private: opts.private ?? false, short_description: opts.short ?? null },
  });
  expect(r.status, r.text).toBe(200);
  return r.json;
}

/** Box → version → provider (external URL unless `hosted`) → release, through the API. */
export async function publish(
  http: HttpClient,
  owner: string,
  box: string,
  version: string,
  opts: {
    provider?: string;
    architecture?: string;
    url?: string;
    release?: boolean;
    api?: 'v1' | 'v2';
  } = {},
) {
  const api = `/api/${opts.api ?? 'v2'}/box/${owner}/${box}`;
  const v = await http.get(`${api}/version/${version}`);
  if (v.status === 404) expect((await http.post(`${api}/versions`, { version: { version } })).status).toBe(200);
  const p = await http.post(`${api}/version/${version}/providers`, {
    provider: {
      name: opts.provider ?? 'virtualbox',
      architecture: opts.architecture,
      url: opts.url ?? `https://boxes.example/${box}-${version}.box`,
    },
  });
  expect(p.status, p.text).toBe(200);
  if (opts.release !== false) {
    const r = await http.put(`${api}/version/${version}/release`);
    expect(r.status, r.text).toBe(200);
  }
  return p.json;
}

/** A row count straight from the database, to prove that a rejected request changed nothing. */
export async function countRows(d: TestDaemon, table: 'boxes' | 'box_versions' | 'box_providers'): Promise<number> {
  const r = await d.deps.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** Every registry row, for before/after comparisons. */
export async function snapshot(d: TestDaemon) {
  const db = d.deps.db;
  return {
    boxes: await db.selectFrom('boxes').selectAll().orderBy('id').execute(),
    versions: await db.selectFrom('box_versions').selectAll().orderBy('id').execute(),
    providers: await db.selectFrom('box_providers').selectAll().orderBy('id').execute(),
  };
}
