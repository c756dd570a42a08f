-- Leaving HCP Vagrant with everything.
-- An upstream made (or pointed elsewhere) by a non-administrator reaches only public addresses
-- and those an administrator allows (lib/address-policy.ts). Those made before this
-- by non-administrators are held to the same rule.
ALTER TABLE upstreams ADD COLUMN restricted INTEGER NOT NULL DEFAULT 0;
UPDATE upstreams SET restricted = 1
  WHERE created_by IS NOT NULL AND created_by IN (SELECT id FROM users WHERE is_admin = 0);

-- A mirror's boxes are as visible as the upstream says (upstream), or as the mirror says. Mirrors
-- made before this chose at their creation: they keep what they chose.
ALTER TABLE mirrors ADD COLUMN visibility TEXT NOT NULL DEFAULT 'upstream' CHECK (visibility IN ('upstream', 'private', 'public'));
UPDATE mirrors SET visibility = CASE WHEN private = 1 THEN 'private' ELSE 'public' END;
ALTER TABLE mirrors DROP COLUMN private;
-- Revoke a mirrored version when the upstream revokes it (off unless asked).
ALTER TABLE mirrors ADD COLUMN follow_revocations INTEGER NOT NULL DEFAULT 0;
-- Files of one job downloaded at once.
ALTER TABLE mirrors ADD COLUMN parallel INTEGER NOT NULL DEFAULT 4;

-- What a mirror last took from the upstream's box API for a box and its versions. A local value
-- that still equals it was not edited here: a later run may bring the upstream's change. One that
-- differs was edited here and is left alone.
CREATE TABLE mirrored_boxes (
  box_id TEXT PRIMARY KEY REFERENCES boxes(id) ON DELETE CASCADE,
  mirror_id TEXT REFERENCES mirrors(id) ON DELETE SET NULL,
  short_description TEXT NOT NULL,
  description TEXT NOT NULL,
  private INTEGER NOT NULL,
  synced_at TEXT NOT NULL
);
CREATE TABLE mirrored_versions (
  version_id TEXT PRIMARY KEY REFERENCES box_versions(id) ON DELETE CASCADE,
  description TEXT NOT NULL,
  synced_at TEXT NOT NULL
);
