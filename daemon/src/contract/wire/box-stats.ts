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
  /**
   * A mirrored version's description: as the upstream last said (`upstream`), changed here (`edited`); null: not from
   * an upstream's box API.
   */
  upstream: z.enum(['upstream', 'edited']).nullable(),
});
export type VersionStatsJson = z.infer<typeof VersionStatsJson>;

export const BoxStatsAnswer = z.object({
  stats: z.object({
    /** The box's count, as the box answer's `downloads`. */
    downloads: z.number(),
    /** The caller may edit the box, its versions and providers (a member of its namespace, or an administrator). */
    may_manage: z.boolean(),
    versions: z.array(VersionStatsJson),
    /**
     * A box a mirror follows (its upstream has a box API): which fields are still as the upstream
     * last said, which were edited here (a later run leaves those alone). Null: not such a box.
     */
    upstream: z
      .object({
        mirror_id: z.string().nullable(),
        synced_at: z.string(),
        fields: z.object({
          short_description: z.enum(['upstream', 'edited']),
          description: z.enum(['upstream', 'edited']),
          private: z.enum(['upstream', 'edited']),
        }),
      })
      .nullable(),
  }),
});
export type BoxStatsAnswer = z.infer<typeof BoxStatsAnswer>;
