import { z } from 'zod';
import { ArchitectureName, BoxName, CreateProvider, CreateVersion, Text } from '../../contract/bodies/registry';
import { Segment } from '../../http/params';

/**
 * HCP's registry API (2022-09-30) in: the bare models Packer's vagrant-registry sends (no `{"box":…}` wrapper). Its
 * `created_at`, `updated_at` and `null` lists are ignored; names and versions follow the Vagrant Cloud API's rules
 * (contract/bodies/registry.ts), so a box made either way is the same box.
 */
export const RegistryParams = z.object({ registry: Segment });
export const HcpBoxParams = RegistryParams.extend({ box: Segment });
export const HcpVersionParams = HcpBoxParams.extend({ version: Segment });
export const HcpProviderParams = HcpVersionParams.extend({ provider: Segment });
export const HcpArchitectureParams = HcpProviderParams.extend({ architecture: Segment });
export type HcpArchitectureParams = z.output<typeof HcpArchitectureParams>;
export const HcpObjectParams = HcpArchitectureParams.extend({ object: z.string().max(128) });
export const OperationParams = z.object({ org: Segment, project: Segment, id: Segment });

const Flag = z.boolean({ message: 'must be true or false' });

/** `is_private` is left out when false (Go's omitempty): absent is a public box, as on HCP. */
export const HcpCreateBox = z.object({
  name: BoxName,
  description: Text(100_000).nullish(),
  short_description: Text(1024).nullish(),
  is_private: Flag.nullish(),
});

export const HcpCreateVersion = z.object({
  name: CreateVersion.shape.version,
  description: CreateVersion.shape.description,
});

export const HcpCreateProvider = z.object({ name: CreateProvider.shape.name });

/**
 * A file's checksum and where it is. `checksum_type` comes as the user typed it in Packer's `box_checksum`
 * (`sha256` or `SHA256`), or `NONE`/`UNSET` for none.
 */
const BoxData = z.object({
  checksum: Text(256).nullish(),
  checksum_type: Text(16).nullish(),
  download_url: CreateProvider.shape.url,
});
export type BoxData = z.output<typeof BoxData>;

export const HcpCreateArchitecture = z.object({
  architecture_type: ArchitectureName,
  default: Flag.nullish(),
  box_data: BoxData.nullish(),
});

export const HcpUpdateArchitecture = z.object({ default: Flag.nullish(), box_data: BoxData.nullish() });

/**
 * A box_data as the provider services take it: no checksum for `NONE`, and `""` (none) for what is not sent, since
 * an architecture's PUT replaces its box data whole.
 */
export function providerFields(bd: BoxData | null | undefined) {
  const type = bd?.checksum_type?.toLowerCase();
  const none = !type || type === 'none' || type === 'unset' || !bd?.checksum;
  return {
    url: bd?.download_url ?? '',
    checksum: none ? '' : (bd?.checksum ?? ''),
    checksum_type: none ? null : type,
  };
}
