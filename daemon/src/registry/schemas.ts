import { z } from 'zod';
import { PathName } from '../auth/names';
import { isGemVersion, MAX_VERSION_LENGTH } from './versions/gem-version';

/** Values vagrant ≥ 2.4 compares with the host's architecture. */
export const ARCHITECTURES = ['amd64', 'i386', 'arm', 'arm64', 'ppc64le', 'ppc64', 'mips64le', 'mips64', 'mipsle', 'mips', 's390x', 'unknown'] as const;
export const isArchitecture = (a: string): boolean => (ARCHITECTURES as readonly string[]).includes(a);
/** What a provider created without an architecture (API v1, gem 3.0.5) is recorded as. */
export const DEFAULT_ARCHITECTURE = 'unknown';

export const BoxName = PathName('name');
const ProviderName = PathName('provider name');
const Text = (max: number) => z.string().max(max, `must be at most ${max} characters`);
const Flag = z.boolean({ message: 'must be true or false' });
const Architecture = z.enum(ARCHITECTURES, { message: `architecture must be one of ${ARCHITECTURES.join(', ')}` });
const VersionNumber = z.string({ message: 'version must be a string' }).max(MAX_VERSION_LENGTH)
  .refine(isGemVersion, 'version must be a Ruby Gem version such as 1.0.0 or 1.0.0-beta (no leading "v")');
/** An external box URL; "" means none (hosted). */
const BoxUrl = z.union([z.literal(''), z.url({ protocol: /^https?$/, message: 'url must be an http or https URL' }).max(2048)]);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A body wrapped under `key` (`{"box":{…}}`, gem ≥ 3.1 and the docs) or flat (`POST /boxes` from
 * vagrant_cloud 3.0.5): both are accepted.
 */
const enveloped = <T extends z.ZodType>(key: string, inner: T) =>
  z.preprocess((body) => (isObject(body) && Object.hasOwn(body, key) && isObject(body[key]) ? body[key] : body), inner);

export const CreateBoxBody = enveloped('box', z.object({
  username: z.string().max(256).nullish(),
  name: BoxName,
  short_description: Text(1024).nullish(),
  description: Text(100_000).nullish(),
  is_private: Flag.nullish(),
}));

/** `PUT /box`: the gem sends back whatever it loaded, so null means unchanged. */
export const UpdateBoxBody = enveloped('box', z.object({
  name: BoxName.nullish(),
  short_description: Text(1024).nullish(),
  description: Text(100_000).nullish(),
  is_private: Flag.nullish(),
}));

export const CreateVersionBody = enveloped('version', z.object({ version: VersionNumber, description: Text(100_000).nullish() }));
export const UpdateVersionBody = enveloped('version', z.object({ version: VersionNumber.nullish(), description: Text(100_000).nullish() }));

const providerFields = {
  url: BoxUrl.nullish(),
  checksum: Text(256).nullish(),
  checksum_type: Text(16).nullish(),
  architecture: Architecture.nullish(),
  default_architecture: Flag.nullish(),
};
export const CreateProviderBody = enveloped('provider', z.object({ name: ProviderName, ...providerFields }));
export const UpdateProviderBody = enveloped('provider', z.object({ name: ProviderName.nullish(), ...providerFields }));
export type ProviderInput = z.output<typeof UpdateProviderBody>;

const blankIsAbsent = (v: unknown) => (v === '' ? undefined : v);
const QueryText = z.preprocess(blankIsAbsent, z.string().max(256, 'must be at most 256 characters').optional());

export const SearchQuery = z.object({
  q: QueryText,
  provider: QueryText,
  architecture: z.preprocess(blankIsAbsent, Architecture.optional()),
  sort: z.preprocess(blankIsAbsent, z.enum(['downloads', 'created', 'updated'], { message: 'sort must be downloads, created or updated' }).default('downloads')),
  order: z.preprocess(blankIsAbsent, z.enum(['desc', 'asc'], { message: 'order must be desc or asc' }).default('desc')),
  limit: z.preprocess(blankIsAbsent, z.coerce.number().int('limit must be a whole number').min(1, 'limit must be at least 1').max(100, 'limit must be at most 100').default(10)),
  page: z.preprocess(blankIsAbsent, z.coerce.number().int('page must be a whole number').min(1, 'page must be at least 1').max(1_000_000, 'page must be at most 1000000').default(1)),
});

const Segment = z.string().max(256);
export const UserParams = z.object({ username: Segment });
export const BoxParams = z.object({ username: Segment, name: Segment });
export const VersionParams = BoxParams.extend({ version: Segment });
export const ProviderParams = VersionParams.extend({ provider: Segment, arch: Segment.optional() });
export type ProviderParams = z.output<typeof ProviderParams>;
