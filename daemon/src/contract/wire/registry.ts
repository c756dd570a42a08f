import { z } from 'zod';

/**
 * The box registry's answers (Vagrant Cloud API v1/v2, under /api/v1 and /api/v2) as the daemon
 * sends them: registry/serialize.ts builds them, the web UI checks what it reads against them.
 * Pure (zod only), so the renderer bundles it without any of the daemon's runtime code.
 * vagrant_cloud 3.0.5 raises on keys it does not know in search hits: change a shape here and in
 * the serializer together, never one alone.
 */

const time = z.string();

export const VERSION_STATUSES = ['unreleased', 'active', 'revoked'] as const;
export type VersionStatus = (typeof VERSION_STATUSES)[number];
/**
 * The word people read for each state (the web UI): Vagrant Cloud's API says `active` for a released version, which
 * the UI's buttons (Release, Revoke) and notes call released.
 */
export const VERSION_STATUS_WORDS: Record<VersionStatus, string> = {
  unreleased: 'unreleased',
  active: 'released',
  revoked: 'revoked',
};

export const ProviderJson = z.object({
  name: z.string(),
  architecture: z.string(),
  default_architecture: z.boolean(),
  /** No external URL: the daemon serves the file (once it has been uploaded). */
  hosted: z.boolean(),
  hosted_token: z.null(),
  original_url: z.string().nullable(),
  url: z.string().nullable(),
  /** Where vagrant downloads the image: the external URL, or the daemon's own. */
  download_url: z.string(),
  /** The declared checksum, else the sha256 the daemon computed on upload; null when neither is known. */
  checksum: z.string().nullable(),
  checksum_type: z.string().nullable(),
  created_at: time,
  updated_at: time,
});
export type ProviderJson = z.infer<typeof ProviderJson>;

export const VersionJson = z.object({
  version: z.string(),
  number: z.string(),
  status: z.enum(VERSION_STATUSES),
  description: z.string(),
  description_html: z.string(),
  description_markdown: z.string(),
  created_at: time,
  updated_at: time,
  release_url: z.string(),
  revoke_url: z.string(),
  providers: z.array(ProviderJson),
});
export type VersionJson = z.infer<typeof VersionJson>;

/** A box in lists (search hits, a namespace's boxes): no `versions`, or vagrant prints each twice. */
export const BoxSummaryJson = z.object({
  name: z.string(),
  username: z.string(),
  /** `username/name`. */
  tag: z.string(),
  private: z.boolean(),
  downloads: z.number(),
  created_at: time,
  updated_at: time,
  short_description: z.string(),
  description: z.string(),
  description_html: z.string(),
  description_markdown: z.string(),
  /** The highest released version, or null before the first release. */
  current_version: VersionJson.nullable(),
});
export type BoxSummaryJson = z.infer<typeof BoxSummaryJson>;

/** A box with every version the caller may see (`GET /box/:user/:name` and the box changes). */
export const BoxJson = BoxSummaryJson.extend({ versions: z.array(VersionJson) });
export type BoxJson = z.infer<typeof BoxJson>;

/** `GET /search`: exactly one key (vagrant_cloud 3.0.5 raises on any other). */
export const SearchJson = z.object({ boxes: z.array(BoxSummaryJson) });
export type SearchJson = z.infer<typeof SearchJson>;

/**
 * `GET …/provider/…/upload[/direct]`: where the file is PUT (the path carries the capability) and,
 * for a direct upload, the callback that attaches it.
 */
export const UploadTargetJson = z.object({ upload_path: z.string(), callback: z.string().optional() });
export type UploadTargetJson = z.infer<typeof UploadTargetJson>;
