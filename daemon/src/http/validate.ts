import type { Context } from 'koa';
import type { z, ZodType } from 'zod';
import { ValidationError, BadParameterError } from '../lib/errors';

export interface Schemas {
  body?: ZodType;
  query?: ZodType;
  params?: ZodType;
}

type Out<S> = S extends ZodType ? z.output<S> : undefined;
export interface Input<S extends Schemas> {
  body: Out<S['body']>;
  query: Out<S['query']>;
  params: Out<S['params']>;
}

/** `body.version.version: expected string` style message that names every problem. */
export function describeIssues(error: z.ZodError): string {
  return error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ');
}

/**
 * The path to the first string (or key) holding NUL, which PostgreSQL cannot store in text (SQLite
 * can): refused on both alike. A walk with a list of its own, not recursion: a body nested a
 * million deep must not overflow the stack.
 */
function nulAt(value: unknown): string[] | undefined {
  // Each entry: a value, and where it sits (its key and its parent's entry), so no path is copied per value.
  interface At {
    value: unknown;
    key?: string;
    parent?: At;
  }
  const pathOf = (at: At | undefined, last?: string): string[] => {
    const keys = last === undefined ? [] : [last];
    for (let a = at; a?.key !== undefined; a = a.parent) keys.unshift(a.key);
    return keys;
  };
  const todo: At[] = [{ value }];
  for (let at = todo.pop(); at; at = todo.pop()) {
    const v = at.value;
    if (typeof v === 'string') {
      if (v.includes('\0')) return pathOf(at);
    } else if (typeof v === 'object' && v !== null) {
      for (const [key, child] of Object.entries(v)) {
        if (key.includes('\0')) return pathOf(at, key);
        todo.push({ value: child, key, parent: at });
      }
    }
  }
  return undefined;
}

function parse<T extends ZodType>(schema: T, value: unknown, where: 'body' | 'query' | 'params'): z.output<T> {
  const nul = nulAt(value);
  if (nul) {
    const message = `Invalid ${where === 'body' ? 'request body' : where === 'query' ? 'query parameter' : 'path'}: ${nul.length ? `${nul.join('.')}: ` : ''}text may not hold the NUL character (\\u0000)`;
    if (where === 'query') throw new BadParameterError(message, { field: nul.join('.') });
    throw new ValidationError(message, where === 'body' && nul.length > 0 ? { field: nul.join('.') } : {});
  }
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const message = `Invalid ${where === 'body' ? 'request body' : where === 'query' ? 'query parameter' : 'path'}: ${describeIssues(r.error)}`;
  const first = r.error.issues[0]?.path.map(String) ?? [];
  // A bad query parameter: 403 in Vagrant Cloud's table, 400 in HCP Terraform's.
  if (where === 'query') throw new BadParameterError(message, { field: first.join('.') });
  throw new ValidationError(message, where === 'body' && first.length > 0 ? { field: first.join('.') } : {});
}

/**
 * Wraps a handler: validates body, query and params with zod and hands over the typed result.
 * An empty query string's result (the defaults) is worked out once and shared, frozen.
 */
export function validated<S extends Schemas>(
  schemas: S,
  handler: (ctx: Context, input: Input<S>) => Promise<void> | void,
) {
  let noQuery: unknown;
  const query = (ctx: Context, schema: ZodType) => {
    if (ctx.querystring !== '') return parse(schema, { ...ctx.query }, 'query');
    noQuery ??= Object.freeze(parse(schema, {}, 'query'));
    return noQuery;
  };
  return async (ctx: Context) => {
    const input = {
      body: schemas.body ? parse(schemas.body, ctx.request.body ?? {}, 'body') : undefined,
      query: schemas.query ? query(ctx, schemas.query) : undefined,
      params: schemas.params
        ? parse(schemas.params, (ctx as unknown as { params: unknown }).params, 'params')
        : undefined,
    } as Input<S>;
    await handler(ctx, input);
  };
}
