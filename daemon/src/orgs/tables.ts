import type { Generated } from 'kysely';
import type { OrganizationRole } from '../contract/wire/accounts';
import type { ExecutionMode } from '../contract/wire/jsonapi';

/** Organizations share the users' name space: `name_key` is unique across both (contract/names.ts). */
export interface OrganizationsTable {
  id: string;
  name: string;
  name_key: string;
  email: string | null;
  profile_markdown: Generated<string>;
  agent_pool_limit: Generated<number>;
  created_at: string;
  updated_at: string;
}

export interface MembershipsTable {
  organization_id: string;
  user_id: string;
  role: OrganizationRole;
  created_at: string;
}

/** HCP Terraform organization attributes Boxyard keeps beside the `organizations` row; written with it. */
export interface OrganizationTfcSettingsTable {
  organization_id: string;
  collaborator_auth_policy: Generated<string>;
  cost_estimation_enabled: Generated<number>;
  session_remember: number | null;
  session_timeout: number | null;
  owners_team_saml_role_id: string | null;
  /** An organization's default for new workspaces. */
  default_execution_mode: Generated<ExecutionMode>;
  /** Cleared (SET NULL) when the pool is deleted. */
  default_agent_pool_id: Generated<string | null>;
}

/** Organizations, their members and HCP Terraform settings as Kysely sees them. */
export interface OrgTables {
  organizations: OrganizationsTable;
  memberships: MembershipsTable;
  organization_tfc_settings: OrganizationTfcSettingsTable;
}
