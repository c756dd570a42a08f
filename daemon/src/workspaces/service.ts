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

export interface WorkspaceInput {
  name?: string;
  description?: string;
  executionMode?: ExecutionMode;
  /** undefined: unchanged; null or "": none (the tfe provider sends ""). */
  agentPoolId?: string | null;
  projectId?: string;
  /** Present keys are set; absent ones keep their value (on create: HCP Terraform's default). */
  settings?: Partial<WorkspaceSettings>;
}

const pointer = (attr: string) => ({ field: attr });

/**
 * What workspaces need of agent pools: the pool a workspace of `ws.organization_id` names, with
 * whether it may use it; undefined when there is no such pool in that organization. pools/
 * answers it (PoolsService.forWorkspace, wired in tfc-services.ts), so workspaces/ imports nothing of it.
 */
export interface PoolChoice {
  forWorkspace(poolId: string, ws: { id: string; organization_id: string; project_id: string }): Promise<{ name: string; allowed: boolean } | undefined>;
}

/** Workspaces: enough of HCP Terraform's to assign them to agent pools. */
export class WorkspacesService {
  constructor(
    private readonly access: OrganizationAccess,
    private readonly repo: WorkspacesRepository,
    private readonly pools: PoolChoice,
    private readonly clock: Clock,
    private readonly ids: IdGen,
  ) {}

  async create(p: Caller, orgName: string, input: WorkspaceInput & { name: string }) {
    const org = await this.access.visible(p, orgName);
    if (await this.repo.workspaceNamed(org.id, input.name)) throw new ConflictError(`A workspace named "${input.name}" already exists in "${org.name}". Choose another name.`, pointer('name'));
    const settings = this.settings(NO_TRIGGERS, input);
    const projectId = await this.projectFor(org, input.projectId);
    const id = this.ids.id('ws');
    const { mode, poolId } = await this.execution(org, { id, project_id: projectId }, { mode: 'remote', poolId: null }, input);
    const now = this.clock.now().toISOString();
    await this.repo.insertWorkspace({
      id, organization_id: org.id, project_id: projectId, name: input.name, name_key: nameKey(input.name),
      description: input.description ?? '', execution_mode: mode, agent_pool_id: poolId, created_at: now, updated_at: now,
      ...settings,
    });
    return (await this.repo.workspaceById(id))!;
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

  async update(p: Caller, id: string, input: WorkspaceInput) {
    const ws = await this.show(p, id);
    if (input.name !== undefined && nameKey(input.name) !== ws.name_key && (await this.repo.workspaceNamed(ws.organization_id, input.name))) {
      throw new ConflictError(`A workspace named "${input.name}" already exists in "${ws.org.name}". Choose another name.`, pointer('name'));
    }
    const settings = this.settings(settingsOf(ws), input);
    const projectId = input.projectId !== undefined ? await this.projectFor(ws.org, input.projectId) : ws.project_id;
    const { mode, poolId } = await this.execution(ws.org, { id, project_id: projectId }, { mode: ws.execution_mode, poolId: ws.agent_pool_id }, input);
    await this.repo.updateWorkspace(id, {
      ...(input.name !== undefined ? { name: input.name, name_key: nameKey(input.name) } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...settings, project_id: projectId, execution_mode: mode, agent_pool_id: poolId, updated_at: this.clock.now().toISOString(),
    });
    return (await this.repo.workspaceById(id))!;
  }

  /** Deleting a workspace removes it from every pool's lists (foreign keys cascade). */
  async delete(p: Caller, id: string): Promise<void> {
    await this.show(p, id);
    await this.repo.deleteWorkspace(id);
  }

  /** The settings columns to write; validated before anything is written. */
  private settings(current: Pick<WorkspaceSettings, 'triggerPrefixes' | 'triggerPatterns'>, input: WorkspaceInput) {
    const { patch, conflict } = withTriggerRule(current, input.settings ?? {});
    if (conflict) throw new ValidationError('trigger-prefixes and trigger-patterns cannot be used together. Send one of them, and [] for the other.', pointer('trigger-patterns'));
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
    if (!found) throw new ValidationError(`Project "${projectId}" does not exist in "${org.name}".`, { field: 'relationships.project.id' });
    return found.id;
  }

  /** Execution mode and pool after a change; a pool is only allowed, and required, in `agent` mode. */
  private async execution(org: OrganizationRow, ws: { id: string; project_id: string }, current: { mode: ExecutionMode; poolId: string | null }, input: WorkspaceInput) {
    const requestedPool = input.agentPoolId === undefined ? undefined : input.agentPoolId || null;
    const mode = input.executionMode ?? (requestedPool ? 'agent' : current.mode);
    const poolId = requestedPool !== undefined ? requestedPool : mode === 'agent' ? current.poolId : null;
    if (mode !== 'agent' && poolId) {
      throw new ValidationError(`agent-pool-id can only be set with execution-mode "agent" (got "${mode}"). Send execution-mode "agent" or an empty agent-pool-id.`, pointer('agent-pool-id'));
    }
    if (mode === 'agent' && !poolId) throw new ValidationError('execution-mode "agent" needs an agent-pool-id: the pool whose agents run this workspace.', pointer('agent-pool-id'));
    if (poolId) {
      const view = await this.pools.forWorkspace(poolId, { ...ws, organization_id: org.id });
      if (!view) throw new ValidationError(`Agent pool "${poolId}" does not exist in "${org.name}".`, pointer('agent-pool-id'));
      if (!view.allowed) {
        throw new ValidationError(`This workspace may not use agent pool "${view.name}": the pool is not organization-scoped and does not allow this workspace or its project, or excludes it. Change the pool's allowed workspaces first.`, pointer('agent-pool-id'));
      }
    }
    return { mode, poolId };
  }
}
