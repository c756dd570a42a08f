-- Service principals (auth/service-principals/): an organization's client id and secret, exchanged at
-- POST /oauth2/token for a bearer token that publishes to that organization only, for an hour.
-- The secret and the tokens are stored as their sha256. Revoking a principal deletes its row, and its
-- tokens with it; a deleted organization takes its principals along.
CREATE TABLE service_principals (
  id TEXT PRIMARY KEY,
  client_id TEXT NOT NULL UNIQUE,
  secret_hash TEXT NOT NULL,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  created_at TEXT NOT NULL,
  last_used_at TEXT
);
CREATE INDEX service_principals_organization ON service_principals (organization_id);
CREATE TABLE service_principal_tokens (
  id TEXT PRIMARY KEY,
  principal_id TEXT NOT NULL REFERENCES service_principals(id) ON DELETE CASCADE,
  token_hash TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL
);
CREATE INDEX service_principal_tokens_principal ON service_principal_tokens (principal_id);

-- An upload URL made with a principal's token is refused once that token ends (as migration 010's for API tokens).
-- @dialect sqlite
CREATE TRIGGER upload_sessions_principal_token_revoked AFTER DELETE ON service_principal_tokens BEGIN
  UPDATE upload_sessions SET token_revoked = 1 WHERE token_id = old.id;
END;

-- @dialect postgres
CREATE TRIGGER upload_sessions_principal_token_revoked AFTER DELETE ON service_principal_tokens FOR EACH ROW EXECUTE FUNCTION upload_sessions_token_revoked();
