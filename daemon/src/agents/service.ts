import { BadParameterError, PreconditionFailedError } from '../lib/errors';
import type { Page } from '../http/jsonapi/pagination';
import type { Caller, OrganizationAccess } from '../orgs/access';
import type { AgentRow, AgentsRepository } from './repository';
import type { PoolsRepository } from '../pools/repository';
import type { PoolsService } from '../pools/service';
// The statuses in which an agent may be deleted (HCP Terraform's rule): the UI offers Delete by the same list.
import { DELETABLE_AGENT_STATUSES as DELETABLE_STATUSES } from '../contract/wire/jsonapi';
import { present } from '../lib/invariant';

/** Agents as users see them: listed per pool, shown, deleted once they are gone. */
export class AgentsService {
  constructor(
    private readonly access: OrganizationAccess,
    private readonly pools: PoolsService,
    private readonly poolsRepo: PoolsRepository,
    private readonly repo: AgentsRepository,
  ) {}

  /** `since` is an ISO 8601 date-time (`filter[last-ping-since]`). */
  async list(p: Caller, poolId: string, since: string | undefined, page: Page) {
    await this.pools.visible(p, poolId);
    let sinceIso: string | undefined;
    if (since !== undefined) {
      const t = Date.parse(since);
      if (!/^\d{4}-\d{2}-\d{2}/.test(since) || Number.isNaN(t)) {
        throw new BadParameterError(
          `filter[last-ping-since] must be an ISO 8601 date-time such as 2026-01-01T00:00:00Z (got "${since}").`,
          { field: 'filter[last-ping-since]' },
        );
      }
      sinceIso = new Date(t).toISOString();
    }
    return this.repo.listAgents(poolId, { since: sinceIso, offset: page.offset, limit: page.size });
  }

  async show(p: Caller, id: string): Promise<AgentRow> {
    const agent = await this.repo.agentById(id);
    const pool = agent ? await this.poolsRepo.poolById(agent.pool_id) : undefined;
    await this.access.member(p, pool, `Agent "${id}"`);
    return present(agent, 'access.member throws when the pool is missing, as it is for a missing agent');
  }

  async delete(p: Caller, id: string): Promise<void> {
    const agent = await this.show(p, id);
    if (!DELETABLE_STATUSES.includes(agent.status)) {
      throw new PreconditionFailedError(
        `Agent "${id}" is ${agent.status}: only agents that are ${DELETABLE_STATUSES.join(', ')} can be deleted. Stop the agent first (it then reports exited).`,
      );
    }
    await this.repo.deleteAgent(id);
  }
}
