import { z } from 'zod';
import { isGemVersion, MAX_VERSION_LENGTH, PathName } from '../names';

/**
 * What the box registry's changes take (Vagrant Cloud API v1/v2: `POST /boxes`, `…/versions`,
 * `…/providers` and their `PUT`s): the part under `box`, `version` or `provider`.
 * registry/schemas.ts accepts each wrapped under its key or flat (vagrant_cloud 3.0.5); the web UI
 * types what it sends with `z.input` of these. Pure (zod only).
 */

/** Values vagrant ≥ 2.4 compares with the host's architecture. */
export const ARCHITECTURES = [
  'amd64',
  'i386',
  'arm',
  'arm64',
  'ppc64le',
  'ppc64',
  'mips64le',
  'mips64',
  'mipsle',
  'mips',
  's390x',
  'unknown',
] as const;
export type Architecture = (typeof ARCHITECTURES)[number];
export const isArchitecture = (a: string): a is Architecture => (ARCHITECTURES as readonly string[]).includes(a);

export const BoxName = PathName('name').describe(
  'Up to 64 letters, numbers, "-", "_" and ".", starting with a letter or number: the second half of owner/name.',
);
const ProviderName = PathName('provider name').describe(
  'What vagrant runs the box with, such as virtualbox, libvirt or vmware_desktop.',
);
/** Text of at most `max` characters. */
export const Text = (max: number) => z.string().max(max, `must be at most ${max} characters`);
const Flag = z.boolean({ message: 'must be true or false' });
export const ArchitectureName = z
  .enum(ARCHITECTURES, { message: `architecture must be one of ${ARCHITECTURES.join(', ')}` })
  .describe("The machines it runs on: vagrant picks the file whose architecture is its host's.");
const VersionNumber = z
  .string({ message: 'version must be a string' })
  .max(MAX_VERSION_LENGTH)
  .refine(isGemVersion, 'version must be a Ruby Gem version such as 1.0.0 or 1.0.0-beta (no leading "v")')
  .describe(
    `Numbers with dots, such as 1.0.0, maybe a suffix such as -beta; no leading "v". Up to ${MAX_VERSION_LENGTH} characters: vagrant sorts versions by it.`,
  );
/** An external box URL; "" means none (hosted). */
const BoxUrl = z.union([
  z.literal(''),
  z.url({ protocol: /^https?$/, message: 'url must be an http or https URL' }).max(2048),
]);

/** A box's descriptions and visibility, as a box is made and changed. */
const ShortDescription = Text(1024).describe('One line, shown in lists and search results. Up to 1024 characters.');
const BoxDescription = Text(100_000).describe(
  "Shown on the box's page, in Markdown: what is installed, how to log in, what changed.",
);
const BoxPrivate = Flag.describe(
  "Only the owner's members (and administrators) see and download it; a token is needed.",
);

export const CreateBox = z.object({
  /** The owner (a user or organization); absent: the caller. */
  username: z
    .string()
    .max(256)
    .describe('You, or an organization you belong to: its members may change the box.')
    .nullish(),
  name: BoxName,
  short_description: ShortDescription.nullish(),
  description: BoxDescription.nullish(),
  is_private: BoxPrivate.nullish(),
});

/** `PUT /box`: the gem sends back whatever it loaded, so null means unchanged. */
export const UpdateBox = z.object({
  name: BoxName.nullish(),
  short_description: ShortDescription.nullish(),
  description: BoxDescription.nullish(),
  is_private: BoxPrivate.nullish(),
});

const VersionDescription = Text(100_000).describe('What changed since the version before, in Markdown.');
export const CreateVersion = z.object({ version: VersionNumber, description: VersionDescription.nullish() });
export const UpdateVersion = z.object({ version: VersionNumber.nullish(), description: VersionDescription.nullish() });

const providerFields = {
  url: BoxUrl.nullish(),
  checksum: Text(256).nullish(),
  /** One of contract/checksums.ts's DIGEST_ALGORITHMS when a checksum is given (registry/providers/checksums.ts). */
  checksum_type: Text(16).nullish(),
  architecture: ArchitectureName.nullish(),
  default_architecture: Flag.nullish(),
};
export const CreateProvider = z.object({ name: ProviderName, ...providerFields });
export const UpdateProvider = z.object({ name: ProviderName.nullish(), ...providerFields });
