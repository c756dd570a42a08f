import type { Context } from 'koa';
import { document, sendDocument, type Document, type Resource } from './document';
import { paginationLinks, paginationMeta, type Page } from './pagination';

export interface ListOptions {
  /** Absolute base URL for the pagination links (see http/base-url.ts). */
  base: string;
  page: Page;
  totalCount: number;
  included?: Resource[];
  /** Extra `meta` members beside `pagination` (e.g. `status-counts`). */
  meta?: Record<string, unknown>;
}

/** A paginated collection: data, absolute links, `meta.pagination` and any extra meta. */
export function listDocument(ctx: Context, data: Resource[], opts: ListOptions): Document {
  const pagination = paginationMeta(opts.page, opts.totalCount);
  return document(data, {
    included: opts.included,
    links: paginationLinks(ctx, opts.base, pagination),
    meta: { pagination, ...opts.meta },
  });
}

/** Answers a paginated collection (listDocument). */
export function sendList(ctx: Context, data: Resource[], opts: ListOptions): void {
  sendDocument(ctx, listDocument(ctx, data, opts));
}
