import type { Resource } from '../http/jsonapi/document';
import { toOne } from '../http/jsonapi/document';
import type { AgentView } from './repository';

/** JSON:API links point under the API's mount. */
const V2 = '/api/v2';

export function agentResource(a: AgentView): Resource {
  return {
    type: 'agents',
    id: a.id,
    attributes: { name: a.name, status: a.status, 'ip-address': a.ip_address, 'last-ping-at': a.last_ping_at },
    relationships: { 'agent-pool': toOne('agent-pools', a.pool_id) },
    links: { self: `${V2}/agents/${a.id}` },
  };
}
