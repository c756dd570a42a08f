-- A new authenticator secret waits here until a code from it is confirmed, so setting up
-- a new authenticator never switches two-factor off. TOTP secrets are sealed with the data
-- folder's secret.key from now on (auth/two-factor/two-factor.ts seals older plaintext ones at start).
ALTER TABLE two_factor ADD COLUMN totp_pending_secret TEXT;
