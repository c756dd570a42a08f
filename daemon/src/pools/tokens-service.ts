import type { Clock } from '../lib/clock';
import type { IdGen } from '../lib/ids';
import { sha256Hex } from '../lib/crypto';
import type { Page } from '../http/jsonapi/pagination';
import type { Caller, OrganizationAccess } from '../orgs/access';
import type { AgentTokenRow, AgentTokensRepository } from './tokens-repository';
import type { PoolsService } from './service';
import type { PoolsRepository } from './repository';
import { present } from '../lib/invariant';

/** Agent tokens belong to a pool; the secret is shown once and stored as a SHA-256 hash. */
export class AgentTokensService {
  constructor(
    private readonly access: OrganizationAccess,
    private readonly pools: PoolsService,
    private readonly poolsRepo: PoolsRepository,
    private readonly repo: AgentTokensRepository,
    private readonly clock: Clock,
    private readonly ids: IdGen,
  ) {}

  async list(p: Caller, poolId: string, page: Page) {
    await this.pools.visible(p, poolId);
    return this.repo.listTokens(poolId, page.offset, page.size);
  }

  async create(p: Caller, poolId: string, description: string): Promise<{ row: AgentTokenRow; secret: string }> {
    await this.pools.show(p, poolId);
    const secret = this.ids.secret(32);
    const row = {
      id: this.ids.id('at'),
      pool_id: poolId,
      description,
      token_hash: sha256Hex(secret),
      created_by: p.user.id,
      created_at: this.clock.now().toISOString(),
      last_used_at: null,
    };
    await this.repo.insertToken(row);
    return { row, secret };
  }

  async show(p: Caller, id: string): Promise<AgentTokenRow> {
    const token = await this.repo.tokenById(id);
    const pool = token ? await this.poolsRepo.poolById(token.pool_id) : undefined;
    await this.access.member(p, pool, `Agent token "${id}"`);
    return present(token, 'access.member throws when the pool is missing, as it is for a missing token');
  }

  /** Revoking a token makes the agents that use it exit: their next report is answered "stop". */
  async revoke(p: Caller, id: string): Promise<void> {
    await this.show(p, id);
    await this.repo.revokeToken(id);
  }
}
