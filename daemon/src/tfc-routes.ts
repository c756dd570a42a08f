import type Router from '@koa/router';
import type { Config } from './config';
import type { AgentServices } from './tfc-services';
import { organizationsRoutes } from './orgs/routes';
import { workspacesRoutes } from './workspaces/routes';
import { poolsRoutes } from './pools/routes';
import { agentsRoutes } from './agents/routes';
import { protocolRoutes } from './agents/protocol-routes';

export type AgentsApiDeps = AgentServices & { config: Pick<Config, 'publicUrl'> };

/** The HCP Terraform-compatible routers, mounted under /api/v2. */
export const agentsApiRoutes = (deps: AgentsApiDeps): Router[] => [
  organizationsRoutes(deps),
  workspacesRoutes(deps),
  poolsRoutes(deps),
  agentsRoutes(deps),
];

/** Boxyard's own agent protocol, mounted under /api/agent. */
export const agentProtocolRoutes = (deps: AgentsApiDeps): Router[] => [protocolRoutes(deps)];
