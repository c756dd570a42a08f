-- Indexes for 10,000 boxes × 10 versions and 1,000 agents (bench/'s large database), and the
-- text index of search.

-- Foreign keys without an index of their own: each lookup by them, and each cascade or SET NULL
-- from their parent, scanned the whole child table.
CREATE INDEX memberships_user ON memberships (user_id);
CREATE INDEX api_tokens_user ON api_tokens (user_id, created_at);
CREATE INDEX two_factor_codes_user ON two_factor_codes (user_id);
CREATE INDEX workspaces_project ON workspaces (project_id);
CREATE INDEX agent_pool_allowed_workspaces_workspace ON agent_pool_allowed_workspaces (workspace_id);
CREATE INDEX agent_pool_excluded_workspaces_workspace ON agent_pool_excluded_workspaces (workspace_id);
CREATE INDEX agent_pool_allowed_projects_project ON agent_pool_allowed_projects (project_id);
CREATE INDEX agent_tokens_created_by ON agent_tokens (created_by);
CREATE INDEX agents_token ON agents (token_id);
CREATE INDEX organization_tfc_settings_default_pool ON organization_tfc_settings (default_agent_pool_id);
CREATE INDEX box_versions_mirror ON box_versions (mirror_id);
CREATE INDEX upstreams_created_by ON upstreams (created_by);
CREATE INDEX mirrors_upstream ON mirrors (upstream_id);
CREATE INDEX mirrors_created_by ON mirrors (created_by);
CREATE INDEX cached_boxes_upstream ON cached_boxes (upstream_id);

-- "Has a released version" (search, namespace listings) is one probe per box; the version
-- numbers of released versions (to pick the current ones) are read from the index alone.
CREATE INDEX box_versions_box_status ON box_versions (box_id, status, created_at, id, version);
-- agent-count of a pool counts its live agents from the index.
CREATE INDEX agents_pool_status ON agents (pool_id, status);

-- Search sorts (downloads, created, updated; desc or asc, ties by name then id) walk one of these
-- and stop after the page instead of sorting every box.
CREATE INDEX boxes_downloads_desc ON boxes (downloads DESC, name_key, id);
CREATE INDEX boxes_downloads_asc ON boxes (downloads, name_key, id);
CREATE INDEX boxes_created_desc ON boxes (created_at DESC, name_key, id);
CREATE INDEX boxes_created_asc ON boxes (created_at, name_key, id);
CREATE INDEX boxes_updated_desc ON boxes (updated_at DESC, name_key, id);
CREATE INDEX boxes_updated_asc ON boxes (updated_at, name_key, id);

-- @dialect sqlite
-- SQLite only (registry/search/text.ts reads it; PostgreSQL answers the same query with LIKE
-- alone, served by the pg_trgm indexes below): a trigram index of each box's name, short description and owner name, so a text
-- query reads the boxes that contain it instead of testing every box. It only narrows: the
-- query still applies its LIKE conditions, so what matches is exactly what LIKE says.
-- Keyed through box_search_keys because boxes has no INTEGER PRIMARY KEY, and VACUUM may
-- renumber the rowid of such a table.
CREATE TABLE box_search_keys (
  key INTEGER PRIMARY KEY,
  box_id TEXT NOT NULL UNIQUE
);
CREATE VIRTUAL TABLE box_search USING fts5 (name, short_description, owner, tokenize = 'trigram');

CREATE TRIGGER boxes_search_insert AFTER INSERT ON boxes BEGIN
  INSERT INTO box_search_keys (box_id) VALUES (new.id);
  INSERT INTO box_search (rowid, name, short_description, owner) VALUES (
    (SELECT key FROM box_search_keys WHERE box_id = new.id), new.name, new.short_description,
    coalesce((SELECT username FROM users WHERE id = new.user_id), (SELECT name FROM organizations WHERE id = new.organization_id)));
END;
CREATE TRIGGER boxes_search_update AFTER UPDATE OF name, short_description ON boxes BEGIN
  UPDATE box_search SET name = new.name, short_description = new.short_description
    WHERE rowid = (SELECT key FROM box_search_keys WHERE box_id = new.id);
END;
-- Also fires for boxes deleted by a cascade (their user or organization deleted).
CREATE TRIGGER boxes_search_delete AFTER DELETE ON boxes BEGIN
  DELETE FROM box_search WHERE rowid = (SELECT key FROM box_search_keys WHERE box_id = old.id);
  DELETE FROM box_search_keys WHERE box_id = old.id;
END;
CREATE TRIGGER organizations_search_rename AFTER UPDATE OF name ON organizations BEGIN
  UPDATE box_search SET owner = new.name WHERE rowid IN
    (SELECT k.key FROM box_search_keys k JOIN boxes b ON b.id = k.box_id WHERE b.organization_id = new.id);
END;
CREATE TRIGGER users_search_rename AFTER UPDATE OF username ON users BEGIN
  UPDATE box_search SET owner = new.username WHERE rowid IN
    (SELECT k.key FROM box_search_keys k JOIN boxes b ON b.id = k.box_id WHERE b.user_id = new.id);
END;

INSERT INTO box_search_keys (box_id) SELECT id FROM boxes ORDER BY created_at, id;
INSERT INTO box_search (rowid, name, short_description, owner)
  SELECT k.key, b.name, b.short_description, coalesce(u.username, o.name)
  FROM box_search_keys k JOIN boxes b ON b.id = k.box_id
  LEFT JOIN users u ON u.id = b.user_id LEFT JOIN organizations o ON o.id = b.organization_id;

-- @dialect postgres
-- PostgreSQL: trigram indexes that `lower(column) LIKE '%text%'` (registry/search/query.ts) uses,
-- so a text query does not test every box. pg_trgm ships with PostgreSQL (contrib) and is a
-- trusted extension: the database's owner may create it.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX boxes_name_trgm ON boxes USING gin (lower(name) gin_trgm_ops);
CREATE INDEX boxes_short_description_trgm ON boxes USING gin (lower(short_description) gin_trgm_ops);
