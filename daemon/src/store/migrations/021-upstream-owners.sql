-- Upstreams belong to their creator. A mirror may have been made on someone else's upstream (an
-- administrator's mirror-by-URL found a plain user's and wrote its token into it): each such
-- mirror's creator gets a copy of its own, without the other user's token, and held to the
-- address policy (restricted), as an address someone else chose. The daemon's own upstream (no
-- creator) is an administrator's to use and is not copied.
CREATE TABLE upstream_copies (source_id TEXT NOT NULL, owner TEXT, id TEXT NOT NULL);
-- @dialect sqlite
INSERT INTO upstream_copies (source_id, owner, id)
  SELECT source_id, owner, 'ups-' || lower(hex(randomblob(12))) FROM (
    SELECT DISTINCT m.upstream_id AS source_id, m.created_by AS owner FROM mirrors m JOIN upstreams u ON u.id = m.upstream_id
    WHERE u.created_by IS NOT NULL AND COALESCE(m.created_by, '') <> u.created_by);
-- @dialect postgres
INSERT INTO upstream_copies (source_id, owner, id)
  SELECT source_id, owner, 'ups-' || md5(random()::text || source_id || COALESCE(owner, '')) FROM (
    SELECT DISTINCT m.upstream_id AS source_id, m.created_by AS owner FROM mirrors m JOIN upstreams u ON u.id = m.upstream_id
    WHERE u.created_by IS NOT NULL AND COALESCE(m.created_by, '') <> u.created_by) AS shared;
-- @dialect all
INSERT INTO upstreams (id, name, name_key, kind, url, token, timeout_seconds, max_failures, pause_minutes, failures,
    paused_until, last_error, created_by, created_at, updated_at, restricted, ca)
  SELECT c.id, u.name || '-' || substr(c.id, 5, 6), u.name_key || '-' || substr(c.id, 5, 6), u.kind, u.url, NULL,
    u.timeout_seconds, u.max_failures, u.pause_minutes, 0, NULL, NULL, c.owner, u.created_at, u.updated_at, 1, u.ca
  FROM upstream_copies c JOIN upstreams u ON u.id = c.source_id;
UPDATE mirrors SET upstream_id = (
    SELECT c.id FROM upstream_copies c WHERE c.source_id = mirrors.upstream_id AND COALESCE(c.owner, '') = COALESCE(mirrors.created_by, ''))
  WHERE EXISTS (
    SELECT 1 FROM upstream_copies c WHERE c.source_id = mirrors.upstream_id AND COALESCE(c.owner, '') = COALESCE(mirrors.created_by, ''));
-- The row that was shared keeps its owner, but not its token: the takeover wrote the other user's
-- token into it, and which of them a token is cannot be told now. Its owner sets theirs again.
UPDATE upstreams SET token = NULL,
    last_error = 'Its token was removed on upgrade: another user''s mirror read through this upstream, and the token may have been theirs. Set your token again.'
  WHERE token IS NOT NULL AND id IN (SELECT source_id FROM upstream_copies);
DROP TABLE upstream_copies;

-- Upstream names are unique per user: a refused name no longer tells a user that someone else
-- has an upstream of that name. Rows with no owner (the daemon's own, a deleted user's) are not
-- held to it, so that deleting a user never fails on a name (the daemon picks free names itself).
-- @dialect postgres
ALTER TABLE upstreams DROP CONSTRAINT upstreams_name_key_key;
-- @dialect sqlite
-- SQLite cannot drop a column's UNIQUE: the table is made again (store/db.ts runs migrations with
-- foreign keys off and checks them before committing, as SQLite's ALTER TABLE page says).
CREATE TABLE upstreams_new (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  name_key TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('registry', 'catalog', 'folder')),
  url TEXT NOT NULL,
  token TEXT,
  timeout_seconds INTEGER NOT NULL DEFAULT 30,
  max_failures INTEGER NOT NULL DEFAULT 3,
  pause_minutes INTEGER NOT NULL DEFAULT 5,
  failures INTEGER NOT NULL DEFAULT 0,
  paused_until TEXT,
  last_error TEXT,
  created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  restricted INTEGER NOT NULL DEFAULT 0,
  ca TEXT
);
INSERT INTO upstreams_new (id, name, name_key, kind, url, token, timeout_seconds, max_failures, pause_minutes, failures,
    paused_until, last_error, created_by, created_at, updated_at, restricted, ca)
  SELECT id, name, name_key, kind, url, token, timeout_seconds, max_failures, pause_minutes, failures,
    paused_until, last_error, created_by, created_at, updated_at, restricted, ca FROM upstreams;
DROP TABLE upstreams;
ALTER TABLE upstreams_new RENAME TO upstreams;
CREATE INDEX upstreams_created_by ON upstreams (created_by);
-- @dialect all
CREATE UNIQUE INDEX upstreams_owner_name ON upstreams (created_by, name_key) WHERE created_by IS NOT NULL;
