import type { Resource } from '../http/jsonapi/document';
import { related, toOne } from '../http/jsonapi/document';
import type { OrganizationRow } from './repository';
import type { OrganizationView } from './tfc-service';
import { TFC } from '../http/route-table';
import { pathTo } from '../http/urls';

/** An organization in Boxyard's own API (/api/boxyard). */
export const organizationSummary = (o: OrganizationRow) => ({
  name: o.name,
  email: o.email,
  profile_markdown: o.profile_markdown,
  agent_pool_limit: o.agent_pool_limit,
  created_at: o.created_at,
  updated_at: o.updated_at,
});

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
      'agent-pools': related(pathTo('v2', TFC.agentPools, { org: org.name })),
      workspaces: related(pathTo('v2', TFC.workspaces, { org: org.name })),
      projects: related(pathTo('v2', TFC.projects, { org: org.name })),
      'default-agent-pool': toOne('agent-pools', tfc.default_agent_pool_id),
    },
    links: { self: pathTo('v2', TFC.organization, { name: org.name }) },
  };
}
