import type { Resource } from '../http/jsonapi/document';
import { related, toMany, toOne } from '../http/jsonapi/document';
import type { AgentTokenRow } from './tokens-repository';
import type { PoolView } from './repository';
import { TFC } from '../http/route-table';
import { pathTo } from '../http/urls';

/** One shape in create, show and list: go-tfe compares the structs it decodes from each. */
export function poolResource(v: PoolView): Resource {
  return {
    type: 'agent-pools',
    id: v.id,
    attributes: {
      name: v.name,
      'created-at': v.created_at,
      'organization-scoped': v.organization_scoped === 1,
      'agent-count': v.agent_count,
    },
    relationships: {
      organization: toOne('organizations', v.organization_name),
      agents: related(pathTo('v2', TFC.poolAgents, { id: v.id })),
      'authentication-tokens': related(pathTo('v2', TFC.agentTokens, { id: v.id })),
      workspaces: toMany('workspaces', v.workspace_ids),
      'allowed-workspaces': toMany('workspaces', v.allowed_workspace_ids),
      'allowed-projects': toMany('projects', v.allowed_project_ids),
      'excluded-workspaces': toMany('workspaces', v.excluded_workspace_ids),
    },
    links: { self: pathTo('v2', TFC.agentPool, { id: v.id }) },
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
    links: { self: pathTo('v2', TFC.agentToken, { id: t.id }) },
  };
}
