import { expect } from 'vitest';
import type { z } from 'zod';
import type { HttpResponse } from './http';

type Answer = Pick<HttpResponse, 'status' | 'text' | 'json'>;

/**
 * The answer as the contract (daemon/src/contract/wire/*.ts) describes it: the schema accepts it,
 * and parsing drops nothing (zod strips keys a schema does not name), so the daemon sends no key
 * the contract leaves out. Answers the parsed body.
 */
export function conforms<S extends z.ZodType>(schema: S, r: Answer, status = 200): z.infer<S> {
  expect(r.status, r.text).toBe(status);
  const parsed = schema.safeParse(r.json);
  expect(parsed.error?.issues ?? [], r.text).toEqual([]);
  expect(parsed.data).toEqual(r.json);
  return parsed.data as z.infer<S>;
}

/** The same for a JSON:API document's primary data; its paging `links` and `meta` are the documents' own. */
export function conformsData<S extends z.ZodType>(schema: S, r: Answer, status = 200): z.infer<S> {
  expect(r.status, r.text).toBe(status);
  const parsed = schema.safeParse(r.json?.data);
  expect(parsed.error?.issues ?? [], r.text).toEqual([]);
  expect(parsed.data).toEqual(r.json.data);
  return parsed.data as z.infer<S>;
}

/**
 * Compile-time: what a serializer builds is assignable to its contract type (tsc fails otherwise).
 * `fits<BoxJson>()(boxJson)`. Keys the serializer adds beyond the contract pass here; the answers
 * checked with `conforms` catch those.
 */
export const fits =
  <Contract>() =>
  <Built extends Contract>(build: (...args: never[]) => Built) =>
    build;
