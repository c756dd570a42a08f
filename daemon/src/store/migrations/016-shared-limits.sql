-- Daemons that share a PostgreSQL database count request rates and failed logins
-- together (http/guards/rate-limit.ts), in the table rate-limiter-flexible's RateLimiterPostgres
-- reads and writes. A single daemon on SQLite counts in its memory, so SQLite has no such table.
-- @dialect postgres
CREATE TABLE rate_limits (
  key varchar(255) PRIMARY KEY,
  points integer NOT NULL DEFAULT 0,
  expire bigint
);
