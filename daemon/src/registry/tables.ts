import type { Generated, Selectable } from 'kysely';
import type { DigestAlgorithm } from '../blobs/blob-store';
import type { VersionStatus } from '../contract/wire/registry';

export interface BoxesTable {
  id: string;
  /** Exactly one of user_id and organization_id is set: the owning namespace. */
  user_id: string | null;
  organization_id: string | null;
  name: string;
  name_key: string;
  short_description: Generated<string>;
  description: Generated<string>;
  private: Generated<number>;
  downloads: Generated<number>;
  created_at: string;
  updated_at: string;
}

export interface BoxVersionsTable {
  id: string;
  box_id: string;
  version: string;
  description: Generated<string>;
  status: Generated<VersionStatus>;
  /** The mirror that published this version (its retention deletes only those). */
  mirror_id: Generated<string | null>;
  created_at: string;
  updated_at: string;
}

export interface BoxProvidersTable {
  id: string;
  version_id: string;
  name: string;
  architecture: string;
  default_architecture: Generated<number>;
  /** External download URL; null for hosted providers. */
  url: string | null;
  /** The checksum declared by the client (checked by vagrant after download). */
  checksum: string | null;
  checksum_type: DigestAlgorithm | null;
  /** The hosted image, set by the blobs feature once an upload is verified. */
  blob_sha256: string | null;
  size: number | null;
  /** Pull-through cache: the upstream file fetched on the first download (until then no blob). */
  source_url: Generated<string | null>;
  created_at: string;
  updated_at: string;
}

/** Finished downloads of a provider's file served here (migration 013); no row: none yet. */
export interface ProviderDownloadsTable {
  provider_id: string;
  downloads: Generated<number>;
}

/** What a mirror last took from the upstream for a box (a local value equal to it was not edited here). */
export interface MirroredBoxesTable {
  box_id: string;
  mirror_id: string | null;
  short_description: string;
  description: string;
  private: number;
  synced_at: string;
}

/** The same for a version's description. */
export interface MirroredVersionsTable {
  version_id: string;
  description: string;
  synced_at: string;
}

/** Tables of the box registry, as Kysely sees them. */
export interface RegistryTables {
  boxes: BoxesTable;
  box_versions: BoxVersionsTable;
  box_providers: BoxProvidersTable;
  provider_downloads: ProviderDownloadsTable;
  mirrored_boxes: MirroredBoxesTable;
  mirrored_versions: MirroredVersionsTable;
}

export type BoxRow = Selectable<BoxesTable>;
export type VersionRow = Selectable<BoxVersionsTable>;
export type ProviderRow = Selectable<BoxProvidersTable>;
/** A box with the name of its owning user or organization. */
export type BoxRecord = BoxRow & { username: string };

/** A version with its providers. */
export interface VersionDetail {
  version: VersionRow;
  providers: ProviderRow[];
}

/**
 * Which of a box's versions are read: every one (who may manage the box), the published ones
 * (released and revoked: anyone else), or only the released ones (the catalog vagrant reads).
 */
export type VersionSet = 'all' | 'published' | 'active';
