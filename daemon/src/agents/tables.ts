import type { Generated } from 'kysely';

export type ExecutionMode = 'remote' | 'local' | 'agent';
export type AgentStatus = 'idle' | 'busy' | 'unknown' | 'errored' | 'exited';

/** HCP Terraform organization attributes Boxyard keeps beside the shared `organizations` row. */
export interface OrganizationTfcSettingsTable {
  organization_id: string;
  collaborator_auth_policy: Generated<string>;
  cost_estimation_enabled: Generated<number>;
  session_remember: number | null;
  session_timeout: number | null;
  owners_team_saml_role_id: string | null;
  default_execution_mode: Generated<ExecutionMode>;
  /** Cleared (SET NULL) when the pool is deleted. */
  default_agent_pool_id: Generated<string | null>;
}

export interface ProjectsTable {
  id: string;
  organization_id: string;
  name: string;
  name_key: string;
  is_default: Generated<number>;
  created_at: string;
}

export interface AgentPoolsTable {
  id: string;
  organization_id: string;
  name: string;
  name_key: string;
  organization_scoped: number;
  /** Creation order: breaks ties between equal `created_at` values when sorting. */
  seq: number;
  created_at: string;
  /** Idle, busy and unknown agents (`agent-count`); kept by triggers (migration 008). */
  agent_count: Generated<number>;
  /** All of its agents; kept by triggers. */
  agent_total: Generated<number>;
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

export interface PoolWorkspaceLinkTable {
  pool_id: string;
  workspace_id: string;
}

export interface PoolProjectLinkTable {
  pool_id: string;
  project_id: string;
}

export interface AgentTokensTable {
  id: string;
  pool_id: string;
  description: Generated<string>;
  token_hash: string;
  created_by: string | null;
  created_at: string;
  last_used_at: string | null;
}

export interface AgentsTable {
  id: string;
  pool_id: string;
  token_id: string | null;
  name: string | null;
  status: AgentStatus;
  ip_address: string;
  last_ping_at: string;
  created_at: string;
  seq: number;
}

/** Tables of this feature, as Kysely sees them. */
export interface AgentTables {
  organization_tfc_settings: OrganizationTfcSettingsTable;
  projects: ProjectsTable;
  agent_pools: AgentPoolsTable;
  workspaces: WorkspacesTable;
  agent_pool_allowed_workspaces: PoolWorkspaceLinkTable;
  agent_pool_excluded_workspaces: PoolWorkspaceLinkTable;
  agent_pool_allowed_projects: PoolProjectLinkTable;
  agent_tokens: AgentTokensTable;
  agents: AgentsTable;
}
