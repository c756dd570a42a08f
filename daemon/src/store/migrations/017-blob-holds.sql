-- Garbage collection against a concurrent commit of the same content, on one daemon or
-- several (blobs/holds.ts). A commit (or a reuse of a stored blob) holds its digest with a `keep`
-- row while it stores the file and points a row at it; the collector deletes a blob only after
-- inserting a `collect` row, in a transaction that found no `keep` row and no reference. A commit
-- that finds a fresh `collect` row waits for the deletion to end. Rows of a process that died
-- are recognised by their age.
CREATE TABLE blob_holds (
  holder TEXT NOT NULL,
  sha256 TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('keep', 'collect')),
  created_at TEXT NOT NULL,
  PRIMARY KEY (holder, sha256)
);
CREATE INDEX blob_holds_sha256 ON blob_holds (sha256, kind);

-- The daemon running a mirror job. A new leader queues again the jobs that were running
-- (the old leader died, or lost its lock), and an old leader that has not noticed yet finds its
-- job taken from it at its next write, and stops.
ALTER TABLE mirror_jobs ADD COLUMN runner TEXT;
