-- Rights are checked when they are used, not only when they are handed out.

-- upload_sessions.user_id: the user who made the upload URL. Its PUT, and a direct upload's
-- callback, act with that user's rights at that moment (blobs/uploads/service.ts): once they are
-- removed from the box's organization, or are no longer an administrator, the URL stores nothing.
-- URLs made before this take the user of the token that made them. No foreign key, as for
-- token_id (migration 010): a deleted user's tokens go with them, which refuses the URL already.
ALTER TABLE upload_sessions ADD COLUMN user_id TEXT;
UPDATE upload_sessions SET user_id = (SELECT t.user_id FROM api_tokens t WHERE t.id = upload_sessions.token_id);

-- mirrors.runs_as: the user whose rights every run of the mirror uses, as they are when it runs
-- (mirror/run-rights.ts): its creator, or whoever resumed it last. mirrors.paused: why the mirror
-- stopped running (that user may no longer publish into its target, or read through its
-- upstream), shown to the target's owners; null while it runs. A paused mirror is not run by its
-- schedule until someone who may publish into its target resumes it.
ALTER TABLE mirrors ADD COLUMN runs_as TEXT REFERENCES users(id) ON DELETE SET NULL;
UPDATE mirrors SET runs_as = created_by;
ALTER TABLE mirrors ADD COLUMN paused TEXT;
CREATE INDEX mirrors_runs_as ON mirrors (runs_as);
