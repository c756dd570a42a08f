-- Every organization has its default project and its HCP Terraform settings from the moment it
-- exists: OrgService.create (orgs/service.ts) writes them in the transaction that creates it.
-- Before, organizations made through /api/boxyard, `boxyard org create`, mirrors and the
-- pull-through cache got their default project only when a GET of their projects made it,
-- and their settings row on their first PATCH. This fills both in for organizations without them.

-- A project with the default's name but not its flag becomes the default (none is expected: the
-- lazy path made the default before any other project; a name is unique in its organization).
UPDATE projects SET is_default = 1
WHERE name_key = 'default project' AND is_default = 0
  AND NOT EXISTS (SELECT 1 FROM projects d WHERE d.organization_id = projects.organization_id AND d.is_default = 1);

-- Dated as the organization, as a default project made with it is, so it lists first. SQLite
-- only: a PostgreSQL database starts empty at this schema, so it has no organization to fill in.
-- @dialect sqlite
INSERT INTO projects (id, organization_id, name, name_key, is_default, created_at)
SELECT 'prj-' || lower(hex(randomblob(8))), o.id, 'Default Project', 'default project', 1, o.created_at
FROM organizations o
WHERE NOT EXISTS (SELECT 1 FROM projects p WHERE p.organization_id = o.id AND p.is_default = 1);

-- @dialect all
INSERT INTO organization_tfc_settings (organization_id)
SELECT o.id FROM organizations o
WHERE NOT EXISTS (SELECT 1 FROM organization_tfc_settings t WHERE t.organization_id = o.id);

-- One default project per organization, whoever writes projects.
CREATE UNIQUE INDEX projects_one_default ON projects (organization_id) WHERE is_default = 1;
