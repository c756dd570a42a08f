-- Upload sessions for hosted box files. The upload URL carries a random secret; only its SHA-256
-- is stored. A session dies with its provider (and so with its version and box).
CREATE TABLE upload_sessions (
  id TEXT PRIMARY KEY,
  secret_hash TEXT NOT NULL UNIQUE,
  provider_id TEXT NOT NULL REFERENCES box_providers(id) ON DELETE CASCADE,
  kind TEXT NOT NULL CHECK (kind IN ('plain', 'direct')),
  -- open: waiting for the PUT (again, after a failed one); receiving: a PUT is streaming;
  -- received: a direct upload is stored and waits for its callback; done: used up.
  state TEXT NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'receiving', 'received', 'done')),
  -- The checksum the provider declared when the URL was made: the PUT is verified against it.
  checksum TEXT,
  checksum_type TEXT CHECK (checksum_type IN ('md5', 'sha1', 'sha256', 'sha384', 'sha512')),
  blob_sha256 TEXT,
  blob_size INTEGER,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  expires_at TEXT NOT NULL
);
CREATE INDEX upload_sessions_provider ON upload_sessions (provider_id);
CREATE INDEX upload_sessions_expires ON upload_sessions (expires_at);
