import type { Context } from 'koa';
import { z } from 'zod';
import type { Links } from './document';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

const positiveInt = (name: string) =>
  z
    .string()
    .regex(/^\d{1,9}$/, `${name} must be a positive whole number`)
    .transform(Number)
    .refine((n) => n >= 1, `${name} must be at least 1`);

/**
 * `page[number]` and `page[size]` as flat query keys: Koa decodes `page%5Bnumber%5D` into the
 * key `page[number]`. A size above the maximum is clamped to 100, as HCP Terraform does.
 */
export const PageQuery = z.object({
  'page[number]': positiveInt('page[number]').optional(),
  'page[size]': positiveInt('page[size]')
    .transform((n) => Math.min(n, MAX_PAGE_SIZE))
    .optional(),
});
export type PageQuery = z.infer<typeof PageQuery>;

export interface Page {
  number: number;
  size: number;
  offset: number;
}

export function pageOf(q: PageQuery): Page {
  const number = q['page[number]'] ?? 1;
  const size = q['page[size]'] ?? DEFAULT_PAGE_SIZE;
  return { number, size, offset: (number - 1) * size };
}

export interface PaginationMeta {
  'current-page': number;
  'page-size': number;
  'prev-page': number | null;
  'next-page': number | null;
  'total-pages': number;
  'total-count': number;
}

/**
 * A page past the end is not an error: empty data, `current-page` as requested, the true
 * `total-count` (go-tfe's TestAgentPoolsList asks for page 999). prev/next follow Rails' kaminari,
 * which HCP Terraform uses: null on the first or last page and for pages out of range.
 */
export function paginationMeta(page: Page, totalCount: number): PaginationMeta {
  const totalPages = Math.max(1, Math.ceil(totalCount / page.size));
  const outOfRange = page.number > totalPages;
  return {
    'current-page': page.number,
    'page-size': page.size,
    'prev-page': page.number > 1 && !outOfRange ? page.number - 1 : null,
    'next-page': page.number < totalPages ? page.number + 1 : null,
    'total-pages': totalPages,
    'total-count': totalCount,
  };
}

/** Absolute links that keep every other query parameter; brackets come out as `%5B`/`%5D`. */
export function paginationLinks(ctx: Context, base: string, meta: PaginationMeta): Links {
  const kept = new URLSearchParams();
  for (const [k, v] of Object.entries(ctx.query)) {
    if (k === 'page[number]' || k === 'page[size]' || k === 'access_token' || v === undefined) continue;
    for (const one of Array.isArray(v) ? v : [v]) kept.append(k, one);
  }
  // The other parameters are encoded once; the page ones come last, as URLSearchParams#set puts them.
  const prefix = `${base}${ctx.path}?${kept.size > 0 ? `${kept.toString()}&` : ''}page%5Bnumber%5D=`;
  const size = `&page%5Bsize%5D=${meta['page-size']}`;
  const url = (n: number) => `${prefix}${n}${size}`;
  return {
    self: url(meta['current-page']),
    first: url(1),
    prev: meta['prev-page'] === null ? null : url(meta['prev-page']),
    next: meta['next-page'] === null ? null : url(meta['next-page']),
    last: url(meta['total-pages']),
  };
}
