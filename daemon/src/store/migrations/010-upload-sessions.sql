-- Upload URLs.
-- token_id: the API token that made the URL. Revoking it (deleting its row, however: sign-out, a
-- password change, a deleted user) marks the URL, whose PUT is then refused. A trigger rather
-- than a foreign key: any principal's token id may be recorded, and the refusal can say why.
-- receiver: the PUT receiving now (also its staging folder's name): a newer PUT takes over from a
-- stalled one, and only the current receiver may finish the session.
ALTER TABLE upload_sessions ADD COLUMN token_id TEXT;
ALTER TABLE upload_sessions ADD COLUMN token_revoked INTEGER NOT NULL DEFAULT 0;
ALTER TABLE upload_sessions ADD COLUMN receiver TEXT;
CREATE INDEX upload_sessions_token ON upload_sessions (token_id);

-- @dialect sqlite
CREATE TRIGGER upload_sessions_token_revoked AFTER DELETE ON api_tokens BEGIN
  UPDATE upload_sessions SET token_revoked = 1 WHERE token_id = old.id;
END;

-- @dialect postgres
CREATE FUNCTION upload_sessions_token_revoked() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE upload_sessions SET token_revoked = 1 WHERE token_id = OLD.id;
  RETURN NULL;
END $$;
CREATE TRIGGER upload_sessions_token_revoked AFTER DELETE ON api_tokens FOR EACH ROW EXECUTE FUNCTION upload_sessions_token_revoked();
