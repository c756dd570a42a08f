import type { Generated } from 'kysely';
import type { ExecutionMode } from '../contract/wire/jsonapi';

export interface ProjectsTable {
  id: string;
  organization_id: string;
  name: string;
  name_key: string;
  is_default: Generated<number>;
  created_at: string;
}

export interface WorkspacesTable {
  id: string;
  organization_id: string;
  project_id: string;
  name: string;
  name_key: string;
  description: Generated<string>;
  execution_mode: ExecutionMode;
  agent_pool_id: string | null;
  /** 1: execution_mode is the workspace's own; 0: its organization's default (migration 020). */
  execution_mode_overwritten: Generated<number>;
  /** 1: agent_pool_id is the workspace's own; 0: its organization's default pool in agent mode. */
  agent_pool_overwritten: Generated<number>;
  created_at: string;
  updated_at: string;
  // Settings the tfe provider manages (005-workspace-settings.sql); booleans are 0/1.
  allow_destroy_plan: Generated<number>;
  assessments_enabled: Generated<number>;
  auto_apply: Generated<number>;
  auto_apply_run_trigger: Generated<number>;
  auto_destroy_at: Generated<string | null>;
  auto_destroy_activity_duration: Generated<string | null>;
  file_triggers_enabled: Generated<number>;
  global_remote_state: Generated<number>;
  project_remote_state: Generated<number>;
  inherits_project_auto_destroy: Generated<number>;
  queue_all_runs: Generated<number>;
  source_name: Generated<string | null>;
  source_url: Generated<string | null>;
  speculative_enabled: Generated<number>;
  structured_run_output_enabled: Generated<number>;
  terraform_version: Generated<string>;
  /** JSON array of strings. */
  trigger_prefixes: Generated<string>;
  /** JSON array of strings. */
  trigger_patterns: Generated<string>;
  working_directory: Generated<string>;
}

/** Projects and workspaces, as Kysely sees them. */
export interface WorkspaceTables {
  projects: ProjectsTable;
  workspaces: WorkspacesTable;
}
