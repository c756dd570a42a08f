import { z } from 'zod';

/**
 * What an upstream sends, as vagrant reads it: the catalog of one box (`GET /ORG/BOX` with
 * `Accept: application/json`, or a `metadata.json`). Extra keys are ignored; names, versions,
 * architectures and checksums are checked by plans/box-plan.ts like local input.
 */
export const UpstreamProvider = z.object({
  name: z.string(),
  url: z.string().min(1).max(4096),
  checksum: z.string().max(256).nullish(),
  checksum_type: z.string().max(16).nullish(),
  architecture: z.string().max(32).nullish(),
  default_architecture: z.boolean().nullish(),
});
export const UpstreamVersion = z.object({
  version: z.string(),
  status: z.string().nullish(),
  description_markdown: z.string().max(100_000).nullish(),
  description: z.string().max(100_000).nullish(),
  providers: z.array(UpstreamProvider).max(1000),
});
export const UpstreamCatalog = z.object({
  name: z.string().max(256).nullish(),
  description: z.string().max(100_000).nullish(),
  short_description: z.string().max(1024).nullish(),
  /** Exports (and Boxyard's own catalogs' box API) say; vagrant's catalog does not. */
  private: z.boolean().nullish(),
  versions: z.array(UpstreamVersion).max(10_000),
});
/**
 * What a registry says of a box beyond its catalog (`GET /api/v2/box/ORG/BOX`, Vagrant Cloud's
 * box API; another Boxyard's too), and what an export's catalog says: visibility, both
 * descriptions, each version's description and status.
 */
export const UpstreamBoxInfo = z.object({
  short_description: z.string().max(1024).nullish(),
  description_markdown: z.string().max(100_000).nullish(),
  description: z.string().max(100_000).nullish(),
  private: z.boolean().nullish(),
  versions: z
    .array(
      z.object({
        version: z.string(),
        status: z.string().max(32).nullish(),
        description_markdown: z.string().max(100_000).nullish(),
        description: z.string().max(100_000).nullish(),
      }),
    )
    .max(10_000)
    .nullish(),
});
export type UpstreamBoxInfo = z.infer<typeof UpstreamBoxInfo>;
export type UpstreamProvider = z.infer<typeof UpstreamProvider>;
export type UpstreamCatalog = z.infer<typeof UpstreamCatalog>;

/**
 * A folder written by `boxyard export`, which another Boxyard imports or mirrors from:
 *
 *   boxyard-export.json             this manifest
 *   ORG/BOX/metadata.json           the box's catalog; provider urls are relative to it
 *   ORG/BOX/VERSION/PROVIDER-ARCH.box
 */
export const MANIFEST_FILE = 'boxyard-export.json';
export const ExportManifest = z.object({
  format: z.literal('boxyard-export'),
  format_version: z.literal(1),
  created_at: z.string(),
  boxes: z.array(z.object({ name: z.string(), catalog: z.string() })),
  files: z.array(
    z.object({ path: z.string(), size: z.number().int().nonnegative(), sha256: z.string().regex(/^[0-9a-f]{64}$/) }),
  ),
});
export type ExportManifest = z.infer<typeof ExportManifest>;

/** Where one provider's file goes in an export, relative to the box's metadata.json. */
export const exportFileName = (version: string, provider: string, architecture: string): string =>
  `${version}/${provider}-${architecture}.box`;
