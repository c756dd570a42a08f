import type { Resource } from '../http/jsonapi/document';
import { related, toMany, toOne } from '../http/jsonapi/document';
import type { AgentTokenRow, AgentView } from './agents-repository';
import type { OrganizationView } from './organizations-service';
import type { PoolView } from './pools-repository';
import type { ProjectRow, WorkspaceRow } from './workspaces-repository';
import { WORKSPACE_SETTING_ATTRIBUTES } from './workspace-schemas';
import { settingsOf } from './workspace-settings';

/** Domain → wire for the agents API. Wire names appear only here and in schemas. */
const V2 = '/api/v2';

export function organizationResource(v: OrganizationView): Resource {
  const { org, tfc, isOwner } = v;
  return {
    type: 'organizations',
    id: org.name,
    attributes: {
      name: org.name,
      email: org.email,
      'created-at': org.created_at,
      'external-id': org.id,
      'collaborator-auth-policy': tfc.collaborator_auth_policy,
      'cost-estimation-enabled': tfc.cost_estimation_enabled === 1,
      'enterprise-plan': 'disabled',
      'owners-team-saml-role-id': tfc.owners_team_saml_role_id,
      'saml-enabled': false,
      'session-remember': tfc.session_remember,
      'session-timeout': tfc.session_timeout,
      'trial-expires-at': null,
      'two-factor-conformant': false,
      'agent-pool-limit': org.agent_pool_limit,
      'default-execution-mode': tfc.default_execution_mode,
      permissions: {
        'can-create-team': false,
        'can-create-workspace': true,
        'can-create-workspace-migration': false,
        'can-destroy': isOwner,
        'can-traverse': true,
        'can-update': isOwner,
        'can-update-api-token': false,
        'can-update-oauth': false,
        'can-update-sentinel': false,
      },
    },
    relationships: {
      'agent-pools': related(`${V2}/organizations/${encodeURIComponent(org.name)}/agent-pools`),
      workspaces: related(`${V2}/organizations/${encodeURIComponent(org.name)}/workspaces`),
      projects: related(`${V2}/organizations/${encodeURIComponent(org.name)}/projects`),
      'default-agent-pool': toOne('agent-pools', tfc.default_agent_pool_id),
    },
    links: { self: `${V2}/organizations/${encodeURIComponent(org.name)}` },
  };
}

export function projectResource(p: ProjectRow, orgName: string): Resource {
  return {
    type: 'projects',
    id: p.id,
    attributes: { name: p.name, 'created-at': p.created_at, 'is-default': p.is_default === 1 },
    relationships: { organization: toOne('organizations', orgName) },
    links: { self: `${V2}/projects/${p.id}` },
  };
}

/**
 * Every member who sees a workspace may change and delete it; Boxyard runs no Terraform, so the
 * run, lock and variable permissions are false. terraform-provider-tfe (resource_tfe_workspace.go
 * since its safe-delete support, read at commit 01a4069d) dereferences `permissions.can-force-delete`
 * when destroying a tfe_workspace: without `permissions` the provider panics.
 */
const WORKSPACE_PERMISSIONS = {
  'can-destroy': true,
  'can-force-delete': true,
  'can-force-unlock': false,
  'can-lock': false,
  'can-manage-run-tasks': false,
  'can-queue-apply': false,
  'can-queue-destroy': false,
  'can-queue-run': false,
  'can-read-settings': true,
  'can-unlock': false,
  'can-update': true,
  'can-update-variable': false,
} as const;

export function workspaceResource(w: WorkspaceRow, orgName: string): Resource {
  return {
    type: 'workspaces',
    id: w.id,
    attributes: {
      name: w.name,
      description: w.description,
      'execution-mode': w.execution_mode,
      'agent-pool-id': w.agent_pool_id,
      operations: w.execution_mode !== 'local',
      'created-at': w.created_at,
      'updated-at': w.updated_at,
      ...settingAttributes(w),
      permissions: WORKSPACE_PERMISSIONS,
    },
    relationships: {
      organization: toOne('organizations', orgName),
      project: toOne('projects', w.project_id),
      'agent-pool': toOne('agent-pools', w.agent_pool_id),
    },
    links: { self: `${V2}/workspaces/${w.id}` },
  };
}

/** Every stored setting under its wire name (the table the request schema reads with). */
function settingAttributes(w: WorkspaceRow): Record<string, unknown> {
  const settings = settingsOf(w);
  return Object.fromEntries(Object.entries(WORKSPACE_SETTING_ATTRIBUTES).map(([wire, key]) => [wire, settings[key]]));
}

/** One shape in create, show and list: go-tfe compares the structs it decodes from each. */
export function poolResource(v: PoolView): Resource {
  return {
    type: 'agent-pools',
    id: v.id,
    attributes: { name: v.name, 'created-at': v.created_at, 'organization-scoped': v.organization_scoped === 1, 'agent-count': v.agent_count },
    relationships: {
      organization: toOne('organizations', v.organization_name),
      agents: related(`${V2}/agent-pools/${v.id}/agents`),
      'authentication-tokens': related(`${V2}/agent-pools/${v.id}/authentication-tokens`),
      workspaces: toMany('workspaces', v.workspace_ids),
      'allowed-workspaces': toMany('workspaces', v.allowed_workspace_ids),
      'allowed-projects': toMany('projects', v.allowed_project_ids),
      'excluded-workspaces': toMany('workspaces', v.excluded_workspace_ids),
    },
    links: { self: `${V2}/agent-pools/${v.id}` },
  };
}

/** `secret` only in the response to the create request: it is never stored in clear. */
export function agentTokenResource(t: AgentTokenRow, secret?: string): Resource {
  return {
    type: 'authentication-tokens',
    id: t.id,
    attributes: {
      description: t.description,
      'created-at': t.created_at,
      'last-used-at': t.last_used_at,
      ...(secret !== undefined ? { token: secret } : {}),
    },
    relationships: {
      'agent-pool': toOne('agent-pools', t.pool_id),
      'created-by': toOne('users', t.created_by),
    },
    links: { self: `${V2}/authentication-tokens/${t.id}` },
  };
}

export function agentResource(a: AgentView): Resource {
  return {
    type: 'agents',
    id: a.id,
    attributes: { name: a.name, status: a.status, 'ip-address': a.ip_address, 'last-ping-at': a.last_ping_at },
    relationships: { 'agent-pool': toOne('agent-pools', a.pool_id) },
    links: { self: `${V2}/agents/${a.id}` },
  };
}
