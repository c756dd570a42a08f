-- Box registry: boxes (owned by a user or an organization), versions, providers.
CREATE TABLE boxes (
  id TEXT PRIMARY KEY,
  user_id TEXT REFERENCES users(id) ON DELETE CASCADE,
  organization_id TEXT REFERENCES organizations(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  name_key TEXT NOT NULL,
  short_description TEXT NOT NULL DEFAULT '',
  description TEXT NOT NULL DEFAULT '',
  private INTEGER NOT NULL DEFAULT 1,
  downloads INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  CHECK ((user_id IS NULL) <> (organization_id IS NULL))
);
-- NULLs are distinct in unique indexes, so each index only constrains its own kind of owner.
CREATE UNIQUE INDEX boxes_user_name ON boxes (user_id, name_key);
CREATE UNIQUE INDEX boxes_org_name ON boxes (organization_id, name_key);

CREATE TABLE box_versions (
  id TEXT PRIMARY KEY,
  box_id TEXT NOT NULL REFERENCES boxes(id) ON DELETE CASCADE,
  version TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  status TEXT NOT NULL DEFAULT 'unreleased' CHECK (status IN ('unreleased', 'active', 'revoked')),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (box_id, version)
);

CREATE TABLE box_providers (
  id TEXT PRIMARY KEY,
  version_id TEXT NOT NULL REFERENCES box_versions(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  architecture TEXT NOT NULL,
  default_architecture INTEGER NOT NULL DEFAULT 0,
  url TEXT,
  checksum TEXT,
  checksum_type TEXT CHECK (checksum_type IN ('md5', 'sha1', 'sha256', 'sha384', 'sha512')),
  blob_sha256 TEXT,
  size INTEGER,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (version_id, name, architecture)
);
CREATE INDEX box_providers_blob ON box_providers (blob_sha256);
