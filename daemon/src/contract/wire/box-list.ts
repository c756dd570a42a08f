import { z } from 'zod';
import { BoxSummaryJson } from './registry';

/**
 * The web UI's box list, `GET /api/boxyard/boxes` (daemon/src/ui/box-list-routes.ts): a page of
 * everything the caller may find (what `GET /search` lists), or with `mine=true` a page of the
 * boxes of the caller's own namespaces, released or not. Pure (zod only).
 */

/** What search and the box list sort by; each has an index (migrations 007 and 013). */
export const SEARCH_SORTS = ['downloads', 'created', 'updated', 'name'] as const;
export type SearchSort = (typeof SEARCH_SORTS)[number];

export const BoxListAnswer = z.object({
  boxes: z.array(BoxSummaryJson),
  page: z.number(),
  /** The next page's number, or null on the last page. */
  next_page: z.number().nullable(),
});
export type BoxListAnswer = z.infer<typeof BoxListAnswer>;
