import type { OrganizationRow } from '../orgs/repository';
import type { Clock } from '../lib/clock';
import type { IdGen } from '../lib/ids';
import { ConflictError, LimitReachedError, ValidationError } from '../lib/errors';
import type { Page } from '../http/jsonapi/pagination';
import type { Sort } from '../http/jsonapi/query';
import type { Caller, OrganizationAccess } from '../orgs/access';
import type { PoolsRepository, PoolRow, PoolView, PoolLists } from './repository';
import type { WorkspacesRepository } from '../workspaces/repository';
import type { DefaultsSource } from '../workspaces/service';
import { mayUse, type WorkspaceRef } from './rules';
import { present } from '../lib/invariant';

export interface PoolInput {
  name?: string;
  organizationScoped?: boolean;
  allowedWorkspaceIds?: string[];
  allowedProjectIds?: string[];
  excludedWorkspaceIds?: string[];
}

export interface PoolListOptions {
  search?: string;
  sort?: Sort<'name' | 'created-at'>;
  workspaceName?: string;
  projectName?: string;
  page: Page;
}

const rel = (name: string) => ({ field: `relationships.${name}` });

/** Agent pools: listing with filters, the per-organization limit, allow and exclude lists. */
export class PoolsService {
  constructor(
    private readonly access: OrganizationAccess,
    private readonly repo: PoolsRepository,
    private readonly workspaces: WorkspacesRepository,
    private readonly defaults: DefaultsSource,
    private readonly clock: Clock,
    private readonly ids: IdGen,
  ) {}

  /** workspaces/service.ts's PoolChoice: the pool as a workspace sees it (HCP Terraform's rule, pools/rules.ts). */
  async forWorkspace(poolId: string, ws: WorkspaceRef): Promise<{ name: string; allowed: boolean } | undefined> {
    const row = await this.repo.poolById(poolId);
    const [view] = row && row.organization_id === ws.organization_id ? await this.repo.views([row]) : [];
    return view && { name: view.name, allowed: mayUse(view, ws) };
  }

  /** orgs/tfc-service.ts's PoolOwners: the default agent pool must be a pool of the organization's own. */
  async organizationOfPool(poolId: string): Promise<string | undefined> {
    return (await this.repo.poolById(poolId))?.organization_id;
  }

  async list(p: Caller, orgName: string, opts: PoolListOptions) {
    const org = await this.access.visible(p, orgName);
    const ws =
      opts.workspaceName === undefined
        ? undefined
        : ((await this.workspaces.workspaceNamed(org.id, opts.workspaceName)) ?? null);
    const project =
      opts.projectName === undefined
        ? undefined
        : ((await this.workspaces.projectNamed(org.id, opts.projectName))?.id ?? null);
    const r = await this.repo.list(org.id, {
      search: opts.search,
      sort: opts.sort,
      usableBy: ws,
      usableByProject: project,
      offset: opts.page.offset,
      limit: opts.page.size,
    });
    return { views: await this.repo.views(r.rows), total: r.total, matching: r.matching };
  }

  /**
   * How many agents of each status the organization's pools (or the listed ones among them) have; pools without agents
   * are left out.
   */
  async statusCounts(p: Caller, orgName: string, poolIds?: readonly string[]) {
    const org = await this.access.visible(p, orgName);
    return this.repo.statusCounts(org.id, poolIds);
  }

  /** The pool, if the caller may see it: what its agents and tokens pages check, without its lists. */
  async visible(p: Caller, id: string): Promise<PoolRow> {
    return this.access.visibleRow(p, await this.repo.poolById(id), `Agent pool "${id}"`);
  }

  async show(p: Caller, id: string): Promise<PoolView & { org: OrganizationRow }> {
    const pool = await this.access.member(p, await this.repo.poolById(id), `Agent pool "${id}"`);
    const [view] = await this.repo.views([pool]);
    return { ...view, org: pool.org };
  }

  async create(p: Caller, orgName: string, input: PoolInput & { name: string }): Promise<PoolView> {
    const org = await this.access.visible(p, orgName);
    const lists = await this.checkLists(org, input);
    const id = this.ids.id('apool');
    await this.repo.transaction(async (trx) => {
      const count = await this.repo.countInOrganization(org.id, trx);
      if (count >= org.agent_pool_limit) {
        throw new LimitReachedError(
          `Organization "${org.name}" already has ${count} agent pool(s), its limit (agent-pool-limit ${org.agent_pool_limit}). ` +
            `An owner can raise it with PATCH /api/v2/organizations/${org.name} ({"data":{"type":"organizations","attributes":{"agent-pool-limit":${count + 1}}}}) ` +
            `or PATCH /api/boxyard/organizations/${org.name} ({"organization":{"agent_pool_limit":${count + 1}}}), or delete a pool first.`,
        );
      }
      await this.assertNameFree(org, input.name, null, trx);
      await this.repo.insert(
        trx,
        {
          id,
          organization_id: org.id,
          name: input.name,
          organization_scoped: input.organizationScoped === false ? 0 : 1,
          created_at: this.clock.now().toISOString(),
        },
        lists,
      );
    });
    return this.viewOf(id);
  }

  /** Absent attributes and relationships stay; a present relationship replaces the list (`[]` clears it). */
  async update(p: Caller, id: string, input: PoolInput): Promise<PoolView> {
    const pool = await this.show(p, id);
    const lists = await this.checkLists(pool.org, input);
    await this.assertAssignedStillAllowed(pool, input);
    await this.repo.transaction(async (trx) => {
      if (input.name !== undefined) await this.assertNameFree(pool.org, input.name, id, trx);
      const patch = {
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.organizationScoped !== undefined ? { organization_scoped: input.organizationScoped ? 1 : 0 } : {}),
      };
      await this.repo.update(trx, id, patch, lists);
    });
    return this.viewOf(id);
  }

  /**
   * 204; refused while workspaces run on the pool (their own or inherited), so none is left pointing
   * at nothing, and while it is its organization's default pool, which workspaces made later take.
   */
  async delete(p: Caller, id: string): Promise<void> {
    const pool = await this.show(p, id);
    if (pool.workspace_ids.length > 0) {
      const names = (await this.workspaces.workspacesByIds(pool.organization_id, pool.workspace_ids)).map(
        (w) => w.name,
      );
      throw new ConflictError(
        `Agent pool "${pool.name}" is used by ${names.length} workspace(s) (${names.join(', ')}). Switch them to another pool or execution mode first.`,
      );
    }
    if ((await this.defaults.defaultsOf(pool.organization_id)).poolId === id) {
      throw new ConflictError(
        `Agent pool "${pool.name}" is its organization's default agent pool. Choose another default (or execution mode) for the organization first.`,
      );
    }
    await this.repo.delete(id);
  }

  /** The view of a pool just written. */
  private async viewOf(id: string): Promise<PoolView> {
    const pool = present(await this.repo.poolById(id), `agent pool ${id} is read back after its write`);
    const [view] = await this.repo.views([pool]);
    return view;
  }

  private async assertNameFree(
    org: OrganizationRow,
    name: string,
    exceptId: string | null,
    trx: Parameters<PoolsRepository['nameTaken']>[3],
  ) {
    if (await this.repo.nameTaken(org.id, name, exceptId, trx)) {
      throw new ConflictError(`An agent pool named "${name}" already exists in "${org.name}". Choose another name.`, {
        field: 'name',
      });
    }
  }

  /** Every listed workspace and project must belong to the organization. */
  private async checkLists(org: OrganizationRow, input: PoolInput): Promise<PoolLists> {
    const checkWs = async (ids: string[] | undefined, name: string) => {
      if (!ids) return;
      const found = new Set((await this.workspaces.workspacesByIds(org.id, ids)).map((w) => w.id));
      const missing = ids.filter((i) => !found.has(i));
      if (missing.length)
        throw new ValidationError(
          `${name}: no workspace ${missing.map((m) => `"${m}"`).join(', ')} in "${org.name}".`,
          rel(name),
        );
    };
    await checkWs(input.allowedWorkspaceIds, 'allowed-workspaces');
    await checkWs(input.excludedWorkspaceIds, 'excluded-workspaces');
    if (input.allowedProjectIds) {
      const found = new Set((await this.workspaces.projectsByIds(org.id, input.allowedProjectIds)).map((x) => x.id));
      const missing = input.allowedProjectIds.filter((i) => !found.has(i));
      if (missing.length)
        throw new ValidationError(
          `allowed-projects: no project ${missing.map((m) => `"${m}"`).join(', ')} in "${org.name}".`,
          rel('allowed-projects'),
        );
    }
    return {
      allowedWorkspaceIds: input.allowedWorkspaceIds,
      allowedProjectIds: input.allowedProjectIds,
      excludedWorkspaceIds: input.excludedWorkspaceIds,
    };
  }

  /** An update may not take the pool away from a workspace that runs on it. */
  private async assertAssignedStillAllowed(pool: PoolView, input: PoolInput): Promise<void> {
    if (pool.workspace_ids.length === 0) return;
    const next = {
      ...pool,
      organization_scoped:
        input.organizationScoped === undefined ? pool.organization_scoped : input.organizationScoped ? 1 : 0,
      allowed_workspace_ids: input.allowedWorkspaceIds ?? pool.allowed_workspace_ids,
      allowed_project_ids: input.allowedProjectIds ?? pool.allowed_project_ids,
      excluded_workspace_ids: input.excludedWorkspaceIds ?? pool.excluded_workspace_ids,
    };
    const losing = (await this.workspaces.workspacesByIds(pool.organization_id, pool.workspace_ids)).filter(
      (w) => !mayUse(next, w),
    );
    if (losing.length) {
      throw new ValidationError(
        `This change would take agent pool "${pool.name}" away from workspace(s) that run on it: ${losing.map((w) => w.name).join(', ')}. ` +
          'Allow them, or move them to another pool or execution mode first.',
      );
    }
  }
}
