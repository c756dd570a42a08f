import type { Generated } from 'kysely';
import type { DigestAlgorithm } from '../blobs/blob-store';
import type { JobState, MirrorVisibility, UpstreamKind } from '../contract/wire/mirror';

export interface UpstreamsTable {
  id: string;
  name: string;
  name_key: string;
  kind: UpstreamKind;
  url: string;
  /** Write-only: never serialized. */
  token: string | null;
  /** A CA (PEM) trusted for this upstream besides the system's: another lab's Boxyard on --tls auto. */
  ca: string | null;
  timeout_seconds: Generated<number>;
  max_failures: Generated<number>;
  pause_minutes: Generated<number>;
  failures: Generated<number>;
  paused_until: string | null;
  last_error: string | null;
  created_by: string | null;
  /** 1: made or pointed elsewhere by a non-administrator; reaches only allowed addresses (lib/address-policy.ts). */
  restricted: Generated<number>;
  created_at: string;
  updated_at: string;
}

export interface MirrorsTable {
  id: string;
  upstream_id: string;
  source: string;
  target: string;
  versions: string | null;
  latest: number | null;
  /** JSON arrays of names; [] means all. */
  providers: string;
  architectures: string;
  /** How visible its boxes are: as the upstream says, or always private or public. */
  visibility: Generated<MirrorVisibility>;
  /** 1: a version the upstream revokes is revoked here too. */
  follow_revocations: Generated<number>;
  /** Files of one job downloaded at once. */
  parallel: Generated<number>;
  interval_minutes: number | null;
  retain: number | null;
  next_run_at: string | null;
  created_by: string | null;
  /** Whose rights its runs use, as they are when it runs: its creator, or whoever resumed it last (null: deleted). */
  runs_as: string | null;
  /**
   * Why it stopped running (its user may no longer publish into the target or read through the upstream); null: it
   * runs.
   */
  paused: string | null;
  created_at: string;
  updated_at: string;
}

export interface MirrorJobsTable {
  id: string;
  mirror_id: string;
  state: JobState;
  plan: string | null;
  /** Set once the job publishes: from then on it cannot be cancelled. */
  publishing_at: string | null;
  message: string | null;
  error_code: string | null;
  bytes_total: Generated<number>;
  bytes_done: Generated<number>;
  files_total: Generated<number>;
  files_done: Generated<number>;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  updated_at: string;
  /** The daemon running it (its leadership's id); null while queued. */
  runner: string | null;
}

export interface MirrorFilesTable {
  id: string;
  job_id: string;
  url: string;
  checksum: string | null;
  checksum_type: DigestAlgorithm | null;
  size: number | null;
  bytes_done: Generated<number>;
  blob_sha256: string | null;
  blob_size: number | null;
  state: Generated<'pending' | 'done'>;
}

export interface CachedBoxesTable {
  box_id: string;
  upstream_id: string | null;
  source: string;
  synced_at: string;
}

/** Tables of the mirror feature, as Kysely sees them. */
export interface MirrorTables {
  upstreams: UpstreamsTable;
  mirrors: MirrorsTable;
  mirror_jobs: MirrorJobsTable;
  mirror_files: MirrorFilesTable;
  cached_boxes: CachedBoxesTable;
}
