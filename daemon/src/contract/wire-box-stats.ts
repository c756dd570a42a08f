import { z } from 'zod';

/**
 * `GET /api/boxyard/boxes/:username/:name/stats` (registry/stats-routes.ts): what the web UI's box
 * page shows beyond the Vagrant Cloud box: each provider's file size and finished downloads, each
 * version's downloads (its providers' together) and whether the caller may change the box. Not
 * added to the box API's own answers: those are Vagrant Cloud's shapes, which clients parse.
 * Versions and providers come in the box answer's order, each provider named as there.
 */
export const ProviderStatsJson = z.object({
  name: z.string(),
  architecture: z.string(),
  /** Bytes of the file stored here; null for an external URL or a file not yet uploaded or fetched. */
  size: z.number().nullable(),
  /** Finished downloads of the file from this daemon (the whole file, once its last byte was sent). */
  downloads: z.number(),
});
export type ProviderStatsJson = z.infer<typeof ProviderStatsJson>;

export const VersionStatsJson = z.object({
  version: z.string(),
  downloads: z.number(),
  providers: z.array(ProviderStatsJson),
});
export type VersionStatsJson = z.infer<typeof VersionStatsJson>;

export const BoxStatsAnswer = z.object({
  stats: z.object({
    /** The box's count, as the box answer's `downloads`. */
    downloads: z.number(),
    /** The caller may edit the box, its versions and providers (a member of its namespace, or an administrator). */
    may_manage: z.boolean(),
    versions: z.array(VersionStatsJson),
  }),
});
export type BoxStatsAnswer = z.infer<typeof BoxStatsAnswer>;
