-- Recovery codes: issued when two-factor is switched on (and on request), shown once, stored as their sha256; each
-- signs in once in place of a two-factor code (auth/two-factor/recovery-codes.ts), for a lost phone.
CREATE TABLE two_factor_recovery_codes (
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  code_hash TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (user_id, code_hash)
);
