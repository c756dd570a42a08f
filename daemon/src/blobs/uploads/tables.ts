import type { Generated } from 'kysely';
import type { DigestAlgorithm } from '../blob-store';

export type UploadKind = 'plain' | 'direct';
export type UploadState = 'open' | 'receiving' | 'received' | 'done';

export interface UploadSessionsTable {
  id: string;
  /** SHA-256 of the secret in the upload URL; the secret itself is never stored. */
  secret_hash: string;
  provider_id: string;
  kind: UploadKind;
  state: Generated<UploadState>;
  checksum: string | null;
  checksum_type: DigestAlgorithm | null;
  /** Set once a direct upload's PUT is stored, until its callback attaches it. */
  blob_sha256: string | null;
  blob_size: number | null;
  created_at: string;
  updated_at: string;
  expires_at: string;
  /** The API token that made the URL (null for URLs made before it was recorded). */
  token_id: string | null;
  /**
   * The user who made the URL: its PUT acts with their rights as they are then (null: made before it was recorded, by
   * no known token).
   */
  user_id: string | null;
  /** 1 once that token is revoked (a trigger on api_tokens sets it): the URL is refused. */
  token_revoked: Generated<number>;
  /** The PUT receiving now, which is also its staging folder's name; a newer PUT replaces it. */
  receiver: string | null;
}

/** A commit keeping a digest, or garbage collection deleting it (blobs/holds.ts). */
export interface BlobHoldsTable {
  holder: string;
  sha256: string;
  kind: 'keep' | 'collect';
  created_at: string;
}

/** Tables of the blobs feature, as Kysely sees them. */
export interface BlobTables {
  upload_sessions: UploadSessionsTable;
  blob_holds: BlobHoldsTable;
}
