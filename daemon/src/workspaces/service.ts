import type { OrganizationRow } from '../orgs/repository';
import type { Clock } from '../lib/clock';
import type { IdGen } from '../lib/ids';
import { ConflictError, NotFoundError, ValidationError } from '../lib/errors';
import type { Page } from '../http/jsonapi/pagination';
import type { Caller, OrganizationAccess } from '../orgs/access';
import type { ExecutionMode } from '../contract/wire/jsonapi';
import { NO_TRIGGERS, settingsColumns, settingsOf, withTriggerRule, type WorkspaceSettings } from './settings';
import { nameKey } from '../contract/names';
import type { WorkspacesRepository } from './repository';
import type { Db } from '../auth/repository';
import { effective, overwritesAfter, type Defaults, type Overwrites } from './inheritance';
import { present } from '../lib/invariant';

export interface WorkspaceInput {
  name?: string;
  description?: string;
  executionMode?: ExecutionMode;
  /** undefined: unchanged; null or "": none (the tfe provider sends ""). */
  agentPoolId?: string | null;
  projectId?: string;
  /** Present keys are set; absent ones keep their value (on create: HCP Terraform's default). */
  settings?: Partial<WorkspaceSettings>;
  /** `setting-overwrites`: present keys are set (false: the organization's default). */
  overwrites?: Partial<Overwrites>;
}

/** An organization's default execution mode and pool (orgs/ keeps them: wired in tfc-services.ts). */
export interface DefaultsSource {
  defaultsOf(orgId: string): Promise<Defaults>;
}

const pointer = (attr: string) => ({ field: attr });

/**
 * What workspaces need of agent pools: the pool a workspace of `ws.organization_id` names, with
 * whether it may use it; undefined when there is no such pool in that organization. pools/
 * answers it (PoolsService.forWorkspace, wired in tfc-services.ts), so workspaces/ imports nothing of it.
 */
export interface PoolChoice {
  forWorkspace(
    poolId: string,
    ws: { id: string; organization_id: string; project_id: string },
  ): Promise<{ name: string; allowed: boolean } | undefined>;
}

/**
 * A workspace by its id, or by its organization's name and its own: go-tfe's Update, Delete and SafeDelete call the
 * by-name paths, UpdateByID and DeleteByID the by-id ones; both reach the same rules.
 */
export type WorkspaceAt = { id: string } | { org: string; name: string };

/** Workspaces: enough of HCP Terraform's to assign them to agent pools. */
export class WorkspacesService {
  constructor(
    private readonly access: OrganizationAccess,
    private readonly repo: WorkspacesRepository,
    private readonly pools: PoolChoice,
    private readonly defaults: DefaultsSource,
    private readonly clock: Clock,
    private readonly ids: IdGen,
  ) {}

  async create(p: Caller, orgName: string, input: WorkspaceInput & { name: string }) {
    const org = await this.access.visible(p, orgName);
    if (await this.repo.workspaceNamed(org.id, input.name))
      throw new ConflictError(
        `A workspace named "${input.name}" already exists in "${org.name}". Choose another name.`,
        pointer('name'),
      );
    const settings = this.settings(NO_TRIGGERS, input);
    const projectId = await this.projectFor(org, input.projectId);
    const id = this.ids.id('ws');
    const { mode, poolId, overwrites } = await this.execution(
      org,
      { id, project_id: projectId },
      { mode: 'remote', poolId: null, overwrites: INHERITS },
      input,
    );
    const now = this.clock.now().toISOString();
    await this.repo.insertWorkspace({
      id,
      organization_id: org.id,
      project_id: projectId,
      name: input.name,
      name_key: nameKey(input.name),
      description: input.description ?? '',
      execution_mode: mode,
      agent_pool_id: poolId,
      ...overwriteColumns(overwrites),
      created_at: now,
      updated_at: now,
      ...settings,
    });
    return present(await this.repo.workspaceById(id), `workspace ${id} is read back after its insert`);
  }

  async list(p: Caller, orgName: string, search: string | undefined, page: Page) {
    const org = await this.access.visible(p, orgName);
    return { org, ...(await this.repo.listWorkspaces(org.id, { search, offset: page.offset, limit: page.size })) };
  }

  show = async (p: Caller, id: string) => this.access.member(p, await this.repo.workspaceById(id), `Workspace "${id}"`);

  /** go-tfe's Workspaces.Read (and so the tfe provider's imports by "org/name") looks workspaces up by name. */
  async showByName(p: Caller, orgName: string, name: string) {
    const org = await this.access.visible(p, orgName);
    const ws = await this.repo.workspaceNamed(org.id, name);
    if (!ws) throw new NotFoundError(`Workspace "${name}" not found in "${org.name}".`);
    return { ...ws, org };
  }

  find = (p: Caller, at: WorkspaceAt) => ('id' in at ? this.show(p, at.id) : this.showByName(p, at.org, at.name));

  async update(p: Caller, at: WorkspaceAt, input: WorkspaceInput) {
    const ws = await this.find(p, at);
    const id = ws.id;
    if (
      input.name !== undefined &&
      nameKey(input.name) !== ws.name_key &&
      (await this.repo.workspaceNamed(ws.organization_id, input.name))
    ) {
      throw new ConflictError(
        `A workspace named "${input.name}" already exists in "${ws.org.name}". Choose another name.`,
        pointer('name'),
      );
    }
    const settings = this.settings(settingsOf(ws), input);
    const projectId = input.projectId !== undefined ? await this.projectFor(ws.org, input.projectId) : ws.project_id;
    const current = { mode: ws.execution_mode, poolId: ws.agent_pool_id, overwrites: overwritesOf(ws) };
    const { mode, poolId, overwrites } = await this.execution(ws.org, { id, project_id: projectId }, current, input);
    await this.repo.updateWorkspace(id, {
      ...(input.name !== undefined ? { name: input.name, name_key: nameKey(input.name) } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...settings,
      project_id: projectId,
      execution_mode: mode,
      agent_pool_id: poolId,
      ...overwriteColumns(overwrites),
      updated_at: this.clock.now().toISOString(),
    });
    return present(await this.repo.workspaceById(id), `workspace ${id} is read back after its update`);
  }

  /**
   * Whether every workspace that inherits can run with an organization's new defaults: on agents
   * only with a pool it may use (orgs/tfc-service.ts asks, InheritingWorkspaces).
   */
  async checkDefaults(org: OrganizationRow, d: Defaults): Promise<void> {
    const field = { field: 'relationships.default-agent-pool.id' };
    for (const ws of await this.repo.inheritingWorkspaces(org.id)) {
      const { poolId } = effective({ mode: ws.execution_mode, poolId: ws.agent_pool_id }, overwritesOf(ws), d);
      if (!poolId) continue;
      const view = await this.pools.forWorkspace(poolId, ws);
      if (!view?.allowed) {
        throw new ValidationError(
          `Workspace "${ws.name}" takes the organization's default agent pool and may not use "${view?.name ?? poolId}": allow it on the pool, or give the workspace a pool of its own, first.`,
          field,
        );
      }
    }
  }

  /** In the transaction that changes an organization's defaults: every workspace that inherits takes them. */
  async applyDefaults(orgId: string, d: Defaults, trx: Db): Promise<void> {
    for (const ws of await this.repo.inheritingWorkspaces(orgId, trx)) {
      const { mode, poolId } = effective({ mode: ws.execution_mode, poolId: ws.agent_pool_id }, overwritesOf(ws), d);
      if (mode !== ws.execution_mode || poolId !== ws.agent_pool_id)
        await this.repo.updateWorkspace(ws.id, { execution_mode: mode, agent_pool_id: poolId }, trx);
    }
  }

  /** Deleting a workspace removes it from every pool's lists (foreign keys cascade). */
  async delete(p: Caller, at: WorkspaceAt): Promise<void> {
    await this.repo.deleteWorkspace((await this.find(p, at)).id);
  }

  /** The settings columns to write; validated before anything is written. */
  private settings(current: Pick<WorkspaceSettings, 'triggerPrefixes' | 'triggerPatterns'>, input: WorkspaceInput) {
    const { patch, conflict } = withTriggerRule(current, input.settings ?? {});
    if (conflict)
      throw new ValidationError(
        'trigger-prefixes and trigger-patterns cannot be used together. Send one of them, and [] for the other.',
        pointer('trigger-patterns'),
      );
    return settingsColumns(patch);
  }

  private async projectFor(org: OrganizationRow, projectId: string | undefined): Promise<string> {
    if (projectId === undefined) {
      // Made with the organization (ProjectsService.createDefault), or by migration 012 for older ones.
      const fallback = await this.repo.defaultProject(org.id);
      if (!fallback) throw new Error(`organization ${org.name} has no default project`);
      return fallback.id;
    }
    const [found] = await this.repo.projectsByIds(org.id, [projectId]);
    if (!found)
      throw new ValidationError(`Project "${projectId}" does not exist in "${org.name}".`, {
        field: 'relationships.project.id',
      });
    return found.id;
  }

  /**
   * Execution mode and pool after a change, and which are the workspace's own: a literal value makes
   * it its own, `setting-overwrites: false` hands it back to the organization's default
   * (workspaces/inheritance.ts). A pool is only allowed, and required, in `agent` mode.
   */
  private async execution(
    org: OrganizationRow,
    ws: { id: string; project_id: string },
    current: { mode: ExecutionMode; poolId: string | null; overwrites: Overwrites },
    input: WorkspaceInput,
  ) {
    const requestedPool = input.agentPoolId === undefined ? undefined : input.agentPoolId || null;
    // Only a pool (older clients, the web UI's first versions) means agent mode.
    const executionMode = input.executionMode ?? (requestedPool ? 'agent' : undefined);
    const overwrites = overwritesAfter(current.overwrites, {
      executionMode,
      agentPoolId: input.agentPoolId,
      overwrites: input.overwrites,
    });
    const own = {
      mode: executionMode ?? current.mode,
      poolId: requestedPool !== undefined ? requestedPool : current.poolId,
    };
    const { mode, poolId } = effective(own, overwrites, await this.defaults.defaultsOf(org.id));
    if (mode !== 'agent' && overwrites.agentPool && requestedPool) {
      throw new ValidationError(
        `agent-pool-id can only be set with execution-mode "agent" (got "${mode}"). Send execution-mode "agent" or an empty agent-pool-id.`,
        pointer('agent-pool-id'),
      );
    }
    if (mode === 'agent' && !poolId) {
      throw new ValidationError(
        overwrites.agentPool
          ? 'execution-mode "agent" needs an agent-pool-id: the pool whose agents run this workspace.'
          : `execution-mode "agent" needs an agent pool, and "${org.name}" has no default agent pool. Send an agent-pool-id, or set the organization's default-agent-pool.`,
        pointer('agent-pool-id'),
      );
    }
    await this.checkPool(org, ws, poolId);
    return { mode, poolId, overwrites };
  }

  /** A pool the workspace would run on must be of its organization and allow it. */
  private async checkPool(
    org: OrganizationRow,
    ws: { id: string; project_id: string },
    poolId: string | null,
  ): Promise<void> {
    if (poolId) {
      const view = await this.pools.forWorkspace(poolId, { ...ws, organization_id: org.id });
      if (!view)
        throw new ValidationError(`Agent pool "${poolId}" does not exist in "${org.name}".`, pointer('agent-pool-id'));
      if (!view.allowed) {
        throw new ValidationError(
          `This workspace may not use agent pool "${view.name}": the pool is not organization-scoped and does not allow this workspace or its project, or excludes it. Change the pool's allowed workspaces first.`,
          pointer('agent-pool-id'),
        );
      }
    }
  }
}

/** A new workspace without `setting-overwrites` or values: both from its organization. */
const INHERITS: Overwrites = { executionMode: false, agentPool: false };

export const overwritesOf = (w: {
  execution_mode_overwritten: number;
  agent_pool_overwritten: number;
}): Overwrites => ({ executionMode: w.execution_mode_overwritten === 1, agentPool: w.agent_pool_overwritten === 1 });

const overwriteColumns = (o: Overwrites) => ({
  execution_mode_overwritten: o.executionMode ? 1 : 0,
  agent_pool_overwritten: o.agentPool ? 1 : 0,
});
