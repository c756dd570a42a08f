-- Workspaces inherit their organization's default execution mode and agent pool unless their
-- setting-overwrites say otherwise, as in HCP Terraform. A workspace's execution_mode and
-- agent_pool_id stay what it runs with (the effective values: what pools' `workspaces` lists,
-- filters and the delete rule read); the flags say which of them are its own, and a change of the
-- organization's defaults rewrites the inheriting ones in its transaction (the rule:
-- workspaces/inheritance.ts `effective`, applied by workspaces/service.ts `applyDefaults`).
ALTER TABLE workspaces ADD COLUMN execution_mode_overwritten INTEGER NOT NULL DEFAULT 1;
ALTER TABLE workspaces ADD COLUMN agent_pool_overwritten INTEGER NOT NULL DEFAULT 1;

-- A workspace made before this ran with what it was given: it inherits only where that is what
-- its organization's defaults would give it now, so nothing runs elsewhere after the upgrade.
UPDATE workspaces SET execution_mode_overwritten = 0
WHERE execution_mode = COALESCE((SELECT t.default_execution_mode FROM organization_tfc_settings t WHERE t.organization_id = workspaces.organization_id), 'remote');
UPDATE workspaces SET agent_pool_overwritten = 0
WHERE execution_mode_overwritten = 0 AND (
  (agent_pool_id IS NULL AND execution_mode <> 'agent')
  OR agent_pool_id = (SELECT t.default_agent_pool_id FROM organization_tfc_settings t WHERE t.organization_id = workspaces.organization_id AND t.default_execution_mode = 'agent'));
