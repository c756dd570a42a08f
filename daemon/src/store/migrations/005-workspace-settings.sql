-- Workspace settings the tfe provider manages on tfe_workspace / tfe_workspace_settings, and the
-- organization defaults of tfe_organization_default_settings. Column defaults are HCP Terraform's
-- (booleans as 0/1, list values as JSON text), so existing rows read back as HCP shows them.
ALTER TABLE workspaces ADD COLUMN allow_destroy_plan INTEGER NOT NULL DEFAULT 1;
ALTER TABLE workspaces ADD COLUMN assessments_enabled INTEGER NOT NULL DEFAULT 0;
ALTER TABLE workspaces ADD COLUMN auto_apply INTEGER NOT NULL DEFAULT 0;
ALTER TABLE workspaces ADD COLUMN auto_apply_run_trigger INTEGER NOT NULL DEFAULT 0;
ALTER TABLE workspaces ADD COLUMN auto_destroy_at TEXT;
ALTER TABLE workspaces ADD COLUMN auto_destroy_activity_duration TEXT;
ALTER TABLE workspaces ADD COLUMN file_triggers_enabled INTEGER NOT NULL DEFAULT 1;
ALTER TABLE workspaces ADD COLUMN global_remote_state INTEGER NOT NULL DEFAULT 0;
ALTER TABLE workspaces ADD COLUMN project_remote_state INTEGER NOT NULL DEFAULT 0;
ALTER TABLE workspaces ADD COLUMN inherits_project_auto_destroy INTEGER NOT NULL DEFAULT 1;
ALTER TABLE workspaces ADD COLUMN queue_all_runs INTEGER NOT NULL DEFAULT 0;
ALTER TABLE workspaces ADD COLUMN source_name TEXT;
ALTER TABLE workspaces ADD COLUMN source_url TEXT;
ALTER TABLE workspaces ADD COLUMN speculative_enabled INTEGER NOT NULL DEFAULT 1;
ALTER TABLE workspaces ADD COLUMN structured_run_output_enabled INTEGER NOT NULL DEFAULT 1;
ALTER TABLE workspaces ADD COLUMN terraform_version TEXT NOT NULL DEFAULT 'latest';
ALTER TABLE workspaces ADD COLUMN trigger_prefixes TEXT NOT NULL DEFAULT '[]';
ALTER TABLE workspaces ADD COLUMN trigger_patterns TEXT NOT NULL DEFAULT '[]';
ALTER TABLE workspaces ADD COLUMN working_directory TEXT NOT NULL DEFAULT '';

ALTER TABLE organization_tfc_settings ADD COLUMN default_execution_mode TEXT NOT NULL DEFAULT 'remote'
  CHECK (default_execution_mode IN ('remote', 'local', 'agent'));
ALTER TABLE organization_tfc_settings ADD COLUMN default_agent_pool_id TEXT REFERENCES agent_pools(id) ON DELETE SET NULL;
