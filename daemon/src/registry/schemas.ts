import { z } from 'zod';
import {
  ArchitectureName,
  CreateBox,
  CreateProvider,
  CreateVersion,
  Text,
  UpdateBox,
  UpdateProvider,
  UpdateVersion,
} from '../contract/bodies/registry';
import { queryValue, Segment } from '../http/params';
import { SEARCH_SORTS, type SearchSort } from '../contract/wire/box-list';

/** What a provider created without an architecture (API v1, gem 3.0.5) is recorded as. */
export const DEFAULT_ARCHITECTURE = 'unknown';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A body wrapped under `key` (`{"box":{…}}`, gem ≥ 3.1 and the docs) or flat (`POST /boxes` from
 * vagrant_cloud 3.0.5): both are accepted.
 */
const enveloped = <T extends z.ZodType>(key: string, inner: T) =>
  z.preprocess((body) => (isObject(body) && Object.hasOwn(body, key) && isObject(body[key]) ? body[key] : body), inner);

/* The fields of each change: contract/bodies/registry.ts (the web UI sends them too). */
export const CreateBoxBody = enveloped('box', CreateBox);
export const UpdateBoxBody = enveloped('box', UpdateBox);
export const CreateVersionBody = enveloped('version', CreateVersion);
export const UpdateVersionBody = enveloped('version', UpdateVersion);
export const CreateProviderBody = enveloped('provider', CreateProvider);
export const UpdateProviderBody = enveloped('provider', UpdateProvider);
export type ProviderInput = z.output<typeof UpdateProviderBody>;

const QueryText = queryValue(Text(256).optional());

/** The fields of a search; `SearchQuery` fills in the order. */
export const SearchFields = z.object({
  q: QueryText,
  provider: QueryText,
  architecture: queryValue(ArchitectureName.optional()),
  sort: queryValue(
    z.enum(SEARCH_SORTS, { message: 'sort must be downloads, created, updated or name' }).default('downloads'),
  ),
  order: queryValue(z.enum(['desc', 'asc'], { message: 'order must be desc or asc' }).optional()),
  limit: queryValue(
    z.coerce
      .number()
      .int('limit must be a whole number')
      .min(1, 'limit must be at least 1')
      .max(100, 'limit must be at most 100')
      .default(10),
  ),
  page: queryValue(
    z.coerce
      .number()
      .int('page must be a whole number')
      .min(1, 'page must be at least 1')
      .max(1_000_000, 'page must be at most 1000000')
      .default(1),
  ),
});

/** Most first, newest first, but names from A: the order a search without one asks for. */
export const withDefaultOrder = <T extends { sort: SearchSort; order?: 'asc' | 'desc' }>(f: T) =>
  ({ ...f, order: f.order ?? (f.sort === 'name' ? 'asc' : 'desc') }) as T & { order: 'asc' | 'desc' };

export const SearchQuery = SearchFields.transform(withDefaultOrder);

export const UserParams = z.object({ username: Segment });
export const BoxParams = z.object({ username: Segment, name: Segment });
export const VersionParams = BoxParams.extend({ version: Segment });
export const ProviderParams = VersionParams.extend({ provider: Segment, arch: Segment.optional() });
export type ProviderParams = z.output<typeof ProviderParams>;
