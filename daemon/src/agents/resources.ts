import type { Resource } from '../http/jsonapi/document';
import { toOne } from '../http/jsonapi/document';
import type { AgentView } from './repository';
import { TFC } from '../http/route-table';
import { pathTo } from '../http/urls';

export function agentResource(a: AgentView): Resource {
  return {
    type: 'agents',
    id: a.id,
    attributes: { name: a.name, status: a.status, 'ip-address': a.ip_address, 'last-ping-at': a.last_ping_at },
    relationships: { 'agent-pool': toOne('agent-pools', a.pool_id) },
    links: { self: pathTo('v2', TFC.agent, { id: a.id }) },
  };
}
