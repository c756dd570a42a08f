import type { QueryKey } from '@tanstack/react-query';
import type { Fetcher } from './client';
import { load } from './load';
import { queryKeys } from './query-keys';
import { BoxListAnswer, type SearchSort } from '../../../daemon/src/contract/wire/box-list';

/**
 * The boxes list: one request per page (`GET /api/boxyard/boxes`), whatever the number of boxes.
 * "All" is what search finds for the caller (the public catalogue for a visitor); "Mine" the boxes
 * of the user's own namespaces, released or not.
 */
export const BOX_VIEWS = ['all', 'mine'] as const;
export type BoxView = (typeof BOX_VIEWS)[number];
/** The sorts the list offers (search also sorts by created). */
export const LIST_SORTS = ['downloads', 'updated', 'name'] as const satisfies readonly SearchSort[];
export type ListSort = (typeof LIST_SORTS)[number];
export const PAGE_SIZE = 25;

export interface BoxListParams {
  view: BoxView;
  q: string;
  sort: ListSort;
  provider: string;
  architecture: string;
  page: number;
}

const oneOf = <T extends string>(values: readonly T[], v: string | null, fallback: T): T =>
  (values as readonly string[]).includes(v ?? '') ? (v as T) : fallback;

/** The list's state, read from the page's URL query (so a page of results can be linked and reloaded). */
export function paramsOf(query: URLSearchParams): BoxListParams {
  const page = Number(query.get('page'));
  return {
    view: oneOf(BOX_VIEWS, query.get('view'), 'all'),
    q: query.get('q') ?? '',
    sort: oneOf(LIST_SORTS, query.get('sort'), 'downloads'),
    provider: query.get('provider') ?? '',
    architecture: query.get('architecture') ?? '',
    page: Number.isInteger(page) && page >= 1 ? page : 1,
  };
}

/** The URL query of a state: defaults left out, so the plain list is just /boxes. */
export function queryOf(p: BoxListParams): Record<string, string> {
  const out: Record<string, string> = {};
  if (p.view !== 'all') out.view = p.view;
  if (p.q) out.q = p.q;
  if (p.sort !== 'downloads') out.sort = p.sort;
  if (p.provider) out.provider = p.provider;
  if (p.architecture) out.architecture = p.architecture;
  if (p.page > 1) out.page = String(p.page);
  return out;
}

/**
 * Under the keys box changes already refresh: "Mine" lists the user's namespaces (`namespaces`),
 * "All" is a search (`searches`).
 */
export const boxListKey = (p: BoxListParams): QueryKey => [
  ...(p.view === 'mine' ? queryKeys.namespaces : queryKeys.searches),
  'list',
  new URLSearchParams(queryOf(p)).toString(),
];

export function listBoxes(api: Fetcher, p: BoxListParams) {
  const query = new URLSearchParams({ sort: p.sort, limit: String(PAGE_SIZE), page: String(p.page) });
  if (p.view === 'mine') query.set('mine', 'true');
  if (p.q) query.set('q', p.q);
  if (p.provider) query.set('provider', p.provider);
  if (p.architecture) query.set('architecture', p.architecture);
  return load(api, BoxListAnswer, `/api/boxyard/boxes?${query}`);
}
