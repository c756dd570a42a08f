import type { z } from 'zod';
import type { Fetcher, RequestOptions } from './client';

// The shapes themselves are the daemon's wire contract (daemon/src/contract/wire/*.ts): the same
// schemas its tests hold its answers to, so the page and the daemon cannot drift apart unnoticed.

/** Fetches and checks an answer's shape, naming the path when the daemon sends something unexpected. */
export async function load<T extends z.ZodType>(
  api: Fetcher,
  schema: T,
  path: string,
  opts?: RequestOptions,
): Promise<z.infer<T>> {
  const body = await api(path, opts);
  const r = schema.safeParse(body);
  if (!r.success)
    throw new Error(
      `Unexpected answer from ${path}: ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  return r.data;
}

/** The ids in a JSON:API to-many relationship. */
export const idsOf = (rel: { data: Array<{ id: string }> }): string[] => rel.data.map((r) => r.id);
