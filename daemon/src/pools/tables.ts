import type { Generated, Selectable } from 'kysely';

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

/** Agent pools, the workspaces and projects they serve, and their agent tokens, as Kysely sees them. */
export interface PoolTables {
  agent_pools: AgentPoolsTable;
  agent_pool_allowed_workspaces: PoolWorkspaceLinkTable;
  agent_pool_excluded_workspaces: PoolWorkspaceLinkTable;
  agent_pool_allowed_projects: PoolProjectLinkTable;
  agent_tokens: AgentTokensTable;
}

/** A pool with its organization's name and its count of live agents. */
export type PoolRow = Selectable<AgentPoolsTable> & { organization_name: string };

/** A pool with everything its resource shows. */
export interface PoolView extends PoolRow {
  workspace_ids: string[];
  allowed_workspace_ids: string[];
  allowed_project_ids: string[];
  excluded_workspace_ids: string[];
}
