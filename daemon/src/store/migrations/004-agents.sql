-- Agent pools service: HCP Terraform organization attributes, projects, workspaces, agent pools,
-- their allow/exclude lists, agent tokens and agents. Everything cascades from organizations.
CREATE TABLE organization_tfc_settings (
  organization_id TEXT PRIMARY KEY REFERENCES organizations(id) ON DELETE CASCADE,
  collaborator_auth_policy TEXT NOT NULL DEFAULT 'password',
  cost_estimation_enabled INTEGER NOT NULL DEFAULT 0,
  session_remember INTEGER,
  session_timeout INTEGER,
  owners_team_saml_role_id TEXT
);

CREATE TABLE projects (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  name_key TEXT NOT NULL,
  is_default INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  UNIQUE (organization_id, name_key)
);

CREATE TABLE agent_pools (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  name_key TEXT NOT NULL,
  organization_scoped INTEGER NOT NULL DEFAULT 1,
  seq INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  UNIQUE (organization_id, name_key)
);
CREATE INDEX agent_pools_org ON agent_pools (organization_id, seq);

CREATE TABLE workspaces (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  name_key TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  execution_mode TEXT NOT NULL DEFAULT 'remote' CHECK (execution_mode IN ('remote', 'local', 'agent')),
  agent_pool_id TEXT REFERENCES agent_pools(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (organization_id, name_key)
);
CREATE INDEX workspaces_pool ON workspaces (agent_pool_id);

CREATE TABLE agent_pool_allowed_workspaces (
  pool_id TEXT NOT NULL REFERENCES agent_pools(id) ON DELETE CASCADE,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  PRIMARY KEY (pool_id, workspace_id)
);
CREATE TABLE agent_pool_excluded_workspaces (
  pool_id TEXT NOT NULL REFERENCES agent_pools(id) ON DELETE CASCADE,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  PRIMARY KEY (pool_id, workspace_id)
);
CREATE TABLE agent_pool_allowed_projects (
  pool_id TEXT NOT NULL REFERENCES agent_pools(id) ON DELETE CASCADE,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  PRIMARY KEY (pool_id, project_id)
);

CREATE TABLE agent_tokens (
  id TEXT PRIMARY KEY,
  pool_id TEXT NOT NULL REFERENCES agent_pools(id) ON DELETE CASCADE,
  description TEXT NOT NULL DEFAULT '',
  token_hash TEXT NOT NULL UNIQUE,
  created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  last_used_at TEXT
);
CREATE INDEX agent_tokens_pool ON agent_tokens (pool_id, created_at);

CREATE TABLE agents (
  id TEXT PRIMARY KEY,
  pool_id TEXT NOT NULL REFERENCES agent_pools(id) ON DELETE CASCADE,
  token_id TEXT REFERENCES agent_tokens(id) ON DELETE SET NULL,
  name TEXT,
  status TEXT NOT NULL CHECK (status IN ('idle', 'busy', 'unknown', 'errored', 'exited')),
  ip_address TEXT NOT NULL,
  last_ping_at TEXT NOT NULL,
  created_at TEXT NOT NULL,
  seq INTEGER NOT NULL
);
CREATE INDEX agents_pool ON agents (pool_id, seq);
CREATE INDEX agents_status ON agents (status, last_ping_at);
