import type { Kysely } from 'kysely';
import type { TableClock } from './store/cache/table-clock';
import type { Database } from './store/schema';
import type { Clock } from './lib/clock';
import type { IdGen } from './lib/ids';
import type { Config } from './config';
import type { Logger } from 'pino';
import type { OrganizationAccess } from './orgs/access';
import type { OrgsRepository } from './orgs/repository';
import type { OrgService } from './orgs/service';
import { WorkspacesRepository } from './workspaces/repository';
import { PoolsRepository } from './pools/repository';
import { AgentsRepository } from './agents/repository';
import { AgentTokensRepository } from './pools/tokens-repository';
import { OrganizationsService } from './orgs/tfc-service';
import { ProjectsService } from './workspaces/projects-service';
import { WorkspacesService } from './workspaces/service';
import { PoolsService } from './pools/service';
import { AgentTokensService } from './pools/tokens-service';
import { AgentsService } from './agents/service';
import { AgentProtocolService } from './agents/protocol-service';
import { AgentWatchdog } from './agents/watchdog';

/** What the agents feature builds on: organizations, who may see them, and their SQL (built in deps.ts). */
export interface OrgWiring {
  orgs: OrgService;
  access: OrganizationAccess;
  repo: OrgsRepository;
}

/**
 * Repositories and services of the agents feature; called from deps.ts (the wiring file). Here
 * the features above orgs/ register their part of a new organization (OrgService.afterCreate) and
 * answer what orgs/ asks of them (PoolOwners), so that orgs/ imports none of them.
 */
export function buildAgentServices(
  db: Kysely<Database>,
  versions: TableClock,
  o: OrgWiring,
  clock: Clock,
  ids: IdGen,
  config: Config,
  log: Logger,
) {
  const { access } = o;
  const workspacesRepo = new WorkspacesRepository(db);
  const poolsRepo = new PoolsRepository(db, versions);
  const agentsRepo = new AgentsRepository(db, versions, (err) =>
    log.error({ err }, 'agent pings could not be written'),
  );
  const tokensRepo = new AgentTokensRepository(db, versions);
  // An organization's defaults for its workspaces, as orgs/ keeps them (HCP Terraform's: remote, no pool).
  const defaults = {
    async defaultsOf(orgId: string) {
      const t = await o.repo.tfcSettings(orgId);
      return { mode: t?.default_execution_mode ?? 'remote', poolId: t?.default_agent_pool_id ?? null } as const;
    },
  };
  const pools = new PoolsService(access, poolsRepo, workspacesRepo, defaults, clock, ids);
  const projects = new ProjectsService(access, workspacesRepo, clock, ids);
  o.orgs.afterCreate(projects.createDefault);
  const workspaces = new WorkspacesService(access, workspacesRepo, pools, defaults, clock, ids);
  return {
    organizations: new OrganizationsService(o.orgs, access, o.repo, pools, {
      check: (org, d) => workspaces.checkDefaults(org, d),
      apply: (orgId, d, trx) => workspaces.applyDefaults(orgId, d, trx),
    }),
    workspacesRepo,
    projects,
    workspaces,
    pools,
    agentTokens: new AgentTokensService(access, pools, poolsRepo, tokensRepo, clock, ids),
    agents: new AgentsService(access, pools, poolsRepo, agentsRepo),
    protocol: new AgentProtocolService(agentsRepo, tokensRepo, clock, ids, config.agentPingSeconds),
    /**
     * Writes the agent pings kept in memory (agents/pings.ts) and keeps no more; the daemon's last step before the
     * database closes.
     */
    closePings: () => agentsRepo.closePings(),
    /**
     * Live agents as the database has them, so that their first reports after a start are kept pings too
     * (agents/pings.ts).
     */
    knowLiveAgents: () => agentsRepo.knowLiveAgents(),
    watchdog: new AgentWatchdog(agentsRepo, clock, {
      unknownAfterSeconds: config.agentUnknownAfterSeconds,
      erroredAfterSeconds: config.agentErroredAfterSeconds,
    }),
  };
}

export type AgentServices = ReturnType<typeof buildAgentServices>;

/** How often the daemon's watchdog ticks: often enough to notice silence within a ping or two. */
export const watchdogIntervalMs = (config: Config): number =>
  Math.max(1000, Math.min(config.agentUnknownAfterSeconds, config.agentPingSeconds) * 500);
