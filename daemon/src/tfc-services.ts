import type { Kysely } from 'kysely';
import type { TableVersions } from './store/cache/table-versions';
import type { Database } from './store/schema';
import type { Clock } from './lib/clock';
import type { IdGen } from './lib/ids';
import type { AccountService } from './auth/accounts-service';
import type { Config } from './config';
import { OrganizationAccess } from './orgs/access';
import { WorkspacesRepository } from './workspaces/repository';
import { PoolsRepository } from './pools/repository';
import { AgentsRepository } from './agents/repository';
import { AgentTokensRepository } from './pools/tokens-repository';
import { OrganizationsService } from './orgs/service';
import { ProjectsService } from './workspaces/projects-service';
import { WorkspacesService } from './workspaces/service';
import { PoolsService } from './pools/service';
import { AgentTokensService } from './pools/tokens-service';
import { AgentsService } from './agents/service';
import { AgentProtocolService } from './agents/protocol-service';
import { AgentWatchdog } from './agents/watchdog';

/** Repositories and services of the agents feature; called from deps.ts (the wiring file). */
export function buildAgentServices(db: Kysely<Database>, versions: TableVersions, accounts: AccountService, clock: Clock, ids: IdGen, config: Config) {
  const access = new OrganizationAccess(accounts);
  const workspacesRepo = new WorkspacesRepository(db);
  const poolsRepo = new PoolsRepository(db, versions);
  const agentsRepo = new AgentsRepository(db, versions);
  const tokensRepo = new AgentTokensRepository(db, versions);
  const organizations = new OrganizationsService(accounts, access, workspacesRepo, poolsRepo, clock, ids);
  const pools = new PoolsService(access, poolsRepo, workspacesRepo, clock, ids);
  return {
    organizations,
    workspacesRepo,
    projects: new ProjectsService(access, organizations, workspacesRepo, clock, ids),
    workspaces: new WorkspacesService(access, organizations, workspacesRepo, pools, clock, ids),
    pools,
    agentTokens: new AgentTokensService(access, pools, poolsRepo, tokensRepo, clock, ids),
    agents: new AgentsService(access, pools, poolsRepo, agentsRepo),
    protocol: new AgentProtocolService(agentsRepo, tokensRepo, clock, ids, config.agentPingSeconds),
    watchdog: new AgentWatchdog(agentsRepo, clock, { unknownAfterSeconds: config.agentUnknownAfterSeconds, erroredAfterSeconds: config.agentErroredAfterSeconds }),
  };
}

export type AgentServices = ReturnType<typeof buildAgentServices>;

/** How often the daemon's watchdog ticks: often enough to notice silence within a ping or two. */
export const watchdogIntervalMs = (config: Config): number =>
  Math.max(1000, Math.min(config.agentUnknownAfterSeconds, config.agentPingSeconds) * 500);
