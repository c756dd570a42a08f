-- The web UI's sessions: each sign-in made another API token that lived forever, so
-- they piled up in the user's token list. A session's token is marked as one and ends when its
-- cookie does (auth/tokens-service.ts); the next sign-in deletes the ended ones. API tokens keep
-- expires_at NULL: they last until revoked.
ALTER TABLE api_tokens ADD COLUMN session INTEGER NOT NULL DEFAULT 0;
ALTER TABLE api_tokens ADD COLUMN expires_at TEXT;
CREATE INDEX api_tokens_expires ON api_tokens (expires_at) WHERE expires_at IS NOT NULL;
