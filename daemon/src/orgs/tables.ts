import type { Generated } from 'kysely';
import type { ExecutionMode } from '../workspaces/tables';

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

/** HCP Terraform's organization settings as Kysely sees them (the `organizations` row itself: auth/tables.ts). */
export interface OrgTables {
  organization_tfc_settings: OrganizationTfcSettingsTable;
}
