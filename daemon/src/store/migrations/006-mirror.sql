-- Mirroring: upstreams, mirror definitions, their jobs and the files a job downloads, the
-- pull-through cache's boxes, and where a local provider's bytes come from.
CREATE TABLE upstreams (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  name_key TEXT NOT NULL UNIQUE,
  -- registry: a Vagrant Cloud-like server; catalog: one catalog JSON; folder: a Boxyard export.
  kind TEXT NOT NULL CHECK (kind IN ('registry', 'catalog', 'folder')),
  url TEXT NOT NULL,
  -- Sent as vagrant sends it; write-only: no API answer shows it again.
  token TEXT,
  timeout_seconds INTEGER NOT NULL DEFAULT 30,
  max_failures INTEGER NOT NULL DEFAULT 3,
  pause_minutes INTEGER NOT NULL DEFAULT 5,
  failures INTEGER NOT NULL DEFAULT 0,
  paused_until TEXT,
  last_error TEXT,
  created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

CREATE TABLE mirrors (
  id TEXT PRIMARY KEY,
  upstream_id TEXT NOT NULL REFERENCES upstreams(id) ON DELETE CASCADE,
  -- "ORG/BOX" or "ORG" (every box of the organization) upstream; the local "ORG/BOX" or "ORG".
  source TEXT NOT NULL,
  target TEXT NOT NULL,
  versions TEXT,
  latest INTEGER,
  providers TEXT NOT NULL DEFAULT '[]',
  architectures TEXT NOT NULL DEFAULT '[]',
  private INTEGER NOT NULL DEFAULT 0,
  interval_minutes INTEGER,
  retain INTEGER,
  next_run_at TEXT,
  created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX mirrors_next_run ON mirrors (next_run_at);

CREATE TABLE mirror_jobs (
  id TEXT PRIMARY KEY,
  mirror_id TEXT NOT NULL REFERENCES mirrors(id) ON DELETE CASCADE,
  state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed', 'cancelled')),
  -- What the job will publish (JSON), fixed once the upstream catalogs are read.
  plan TEXT,
  -- Set once the job publishes: from then on it cannot be cancelled.
  publishing_at TEXT,
  message TEXT,
  error_code TEXT,
  bytes_total BIGINT NOT NULL DEFAULT 0,
  bytes_done BIGINT NOT NULL DEFAULT 0,
  files_total INTEGER NOT NULL DEFAULT 0,
  files_done INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  started_at TEXT,
  finished_at TEXT,
  updated_at TEXT NOT NULL
);
CREATE INDEX mirror_jobs_mirror ON mirror_jobs (mirror_id, created_at);
CREATE INDEX mirror_jobs_state ON mirror_jobs (state);

-- One file a job downloads; its id is also its staging folder under uploads/.
CREATE TABLE mirror_files (
  id TEXT PRIMARY KEY,
  job_id TEXT NOT NULL REFERENCES mirror_jobs(id) ON DELETE CASCADE,
  url TEXT NOT NULL,
  checksum TEXT,
  checksum_type TEXT CHECK (checksum_type IN ('md5', 'sha1', 'sha256', 'sha384', 'sha512')),
  size BIGINT,
  bytes_done BIGINT NOT NULL DEFAULT 0,
  blob_sha256 TEXT,
  blob_size BIGINT,
  state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'done'))
);
CREATE INDEX mirror_files_job ON mirror_files (job_id);

-- Boxes the pull-through cache created: where they come from and when they were last refreshed.
CREATE TABLE cached_boxes (
  box_id TEXT PRIMARY KEY REFERENCES boxes(id) ON DELETE CASCADE,
  upstream_id TEXT REFERENCES upstreams(id) ON DELETE SET NULL,
  source TEXT NOT NULL,
  synced_at TEXT NOT NULL
);

-- A provider the cache knows but has not fetched yet: its upstream file (fetched on first download).
ALTER TABLE box_providers ADD COLUMN source_url TEXT;
-- Versions a mirror published (its retention deletes only those).
ALTER TABLE box_versions ADD COLUMN mirror_id TEXT REFERENCES mirrors(id) ON DELETE SET NULL;
