import type { Context } from 'koa';
import { JSONAPI_TYPE } from '../../contract/headers';

export interface ResourceIdentifier {
  type: string;
  id: string;
}

export interface Relationship {
  data?: ResourceIdentifier | ResourceIdentifier[] | null;
  links?: { related: string };
}

export interface Resource extends ResourceIdentifier {
  attributes?: Record<string, unknown>;
  relationships?: Record<string, Relationship>;
  links?: { self: string };
}

export interface Links {
  self: string;
  first?: string;
  prev?: string | null;
  next?: string | null;
  last?: string;
}

export interface Document {
  data: Resource | Resource[] | null;
  included?: Resource[];
  links?: Links;
  meta?: Record<string, unknown>;
}

export const identifier = (type: string, id: string): ResourceIdentifier => ({ type, id });
export const toOne = (type: string, id: string | null | undefined): Relationship => ({
  data: id ? identifier(type, id) : null,
});
export const toMany = (type: string, ids: readonly string[]): Relationship => ({
  data: ids.map((id) => identifier(type, id)),
});
export const related = (path: string): Relationship => ({ links: { related: path } });

/** Drops duplicates (by type and id) and anything already in the primary data, as JSON:API requires. */
export function uniqueIncluded(included: Resource[], primary: Resource[]): Resource[] {
  const seen = new Set(primary.map((r) => `${r.type}\u0000${r.id}`));
  const out: Resource[] = [];
  for (const r of included) {
    const key = `${r.type}\u0000${r.id}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(r);
  }
  return out;
}

export interface DocumentOptions {
  /** Present only when the client asked for it with `include=` (go-tfe compares whole structs). */
  included?: Resource[];
  links?: Links;
  meta?: Record<string, unknown>;
}

/** Builds a top-level document; `included` is only added when something was requested. */
export function document(data: Resource | Resource[] | null, opts: DocumentOptions = {}): Document {
  const doc: Document = { data };
  if (opts.included) {
    const primary = Array.isArray(data) ? data : data ? [data] : [];
    doc.included = uniqueIncluded(opts.included, primary);
  }
  if (opts.links) doc.links = opts.links;
  if (opts.meta) doc.meta = opts.meta;
  return doc;
}

/** Answers with a JSON:API document and its media type. */
export function sendDocument(ctx: Context, doc: Document, status = 200): void {
  ctx.status = status;
  ctx.type = JSONAPI_TYPE;
  ctx.body = doc;
}

/** 204 No Content for deletes: no body, no type. */
export function sendNoContent(ctx: Context): void {
  ctx.status = 204;
  ctx.body = null;
}
