import { ValidationError } from '../lib/errors';
import type { Page } from '../http/jsonapi/pagination';
import type { OrganizationAccess, Caller } from './access';
import type { OrganizationRow, OrgsRepository, TfcSettingsRow } from './repository';
import type { OrgService } from './service';
import type { ExecutionMode } from '../contract/wire/jsonapi';
import type { Db } from '../auth/repository';

export interface OrganizationView {
  org: OrganizationRow;
  tfc: Omit<TfcSettingsRow, 'organization_id'>;
  isOwner: boolean;
}

export interface OrganizationInput {
  name?: string;
  email?: string | null;
  agentPoolLimit?: number;
  collaboratorAuthPolicy?: string;
  costEstimationEnabled?: boolean;
  sessionRemember?: number | null;
  sessionTimeout?: number | null;
  ownersTeamSamlRoleId?: string | null;
  defaultExecutionMode?: ExecutionMode;
  /** undefined: unchanged; null: none. */
  defaultAgentPoolId?: string | null;
}

const DEFAULT_TFC = {
  collaborator_auth_policy: 'password',
  cost_estimation_enabled: 0,
  session_remember: null,
  session_timeout: null,
  owners_team_saml_role_id: null,
  default_execution_mode: 'remote' as ExecutionMode,
  default_agent_pool_id: null,
};
const poolPointer = { field: 'relationships.default-agent-pool.id' };

/**
 * What organizations need of agent pools: the organization a pool belongs to, since the default
 * agent pool must be one of the organization's own. pools/ answers it (wired in tfc-services.ts),
 * so orgs/ imports nothing of it.
 */
export interface PoolOwners {
  organizationOfPool(poolId: string): Promise<string | undefined>;
}

/** An organization's defaults for its workspaces. */
export interface WorkspaceDefaults {
  mode: ExecutionMode;
  poolId: string | null;
}

/**
 * The workspaces that inherit an organization's defaults (workspaces/ answers it: wired in
 * tfc-services.ts): whether they can run with new defaults, and taking them in the transaction
 * that changes them, so that every inheriting workspace changes at once.
 */
export interface InheritingWorkspaces {
  /** Throws a ValidationError when a workspace that inherits could not run with `d`. */
  check(org: OrganizationRow, d: WorkspaceDefaults): Promise<void>;
  apply(orgId: string, d: WorkspaceDefaults, trx: Db): Promise<void>;
}

/** Organizations as HCP Terraform shows them (the JSON:API): the organization's row plus its TFC settings. */
export class OrganizationsService {
  constructor(
    private readonly orgs: OrgService,
    private readonly access: OrganizationAccess,
    private readonly repo: OrgsRepository,
    private readonly pools: PoolOwners,
    private readonly workspaces: InheritingWorkspaces,
  ) {}

  async view(p: Caller, org: OrganizationRow): Promise<OrganizationView> {
    const row = await this.repo.tfcSettings(org.id);
    const { organization_id: _, ...tfc } = row ?? { organization_id: org.id, ...DEFAULT_TFC };
    return { org, tfc, isOwner: await this.access.isOwner(p, org) };
  }

  async create(p: Caller, input: OrganizationInput & { name: string }): Promise<OrganizationView> {
    // A new organization has no pools yet, so no pool can be its default.
    if (input.defaultAgentPoolId)
      throw new ValidationError(
        `Agent pool "${input.defaultAgentPoolId}" does not exist in "${input.name}". Create the pool first, then set it as the default.`,
        poolPointer,
      );
    const org = await this.orgs.create(
      { name: input.name, email: input.email ?? null, agentPoolLimit: input.agentPoolLimit, tfc: tfcPatch(input) },
      p.user,
    );
    return this.view(p, org);
  }

  show = async (p: Caller, name: string) => this.view(p, await this.access.visible(p, name));

  /** A page of the caller's organizations (every one for an administrator), paged in SQL. */
  async list(p: Caller, page: Page): Promise<{ views: OrganizationView[]; total: number }> {
    const admin = p.user.is_admin === 1;
    const { rows, total } = await this.repo.organizationsPage(admin ? null : p.user.id, page.offset, page.size);
    const views = rows.map((r) => {
      const {
        collaborator_auth_policy,
        cost_estimation_enabled,
        session_remember,
        session_timeout,
        owners_team_saml_role_id,
        default_execution_mode,
        default_agent_pool_id,
        role,
        ...org
      } = r;
      // An organization without a settings row has every column null here: the defaults.
      const tfc = {
        collaborator_auth_policy: collaborator_auth_policy ?? DEFAULT_TFC.collaborator_auth_policy,
        cost_estimation_enabled: cost_estimation_enabled ?? DEFAULT_TFC.cost_estimation_enabled,
        session_remember,
        session_timeout,
        owners_team_saml_role_id,
        default_execution_mode: default_execution_mode ?? DEFAULT_TFC.default_execution_mode,
        default_agent_pool_id,
      };
      return { org, tfc, isOwner: admin || role === 'owner' };
    });
    return { views, total };
  }

  async update(p: Caller, name: string, input: OrganizationInput): Promise<OrganizationView> {
    const org = await this.access.visible(p, name);
    await this.orgs.requireOwner(p, org);
    const defaults = await this.defaults(org, input);
    const patch = {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.email !== undefined ? { email: input.email } : {}),
      ...(input.agentPoolLimit !== undefined ? { agent_pool_limit: input.agentPoolLimit } : {}),
    };
    const d =
      defaults.default_execution_mode !== undefined
        ? { mode: defaults.default_execution_mode, poolId: defaults.default_agent_pool_id }
        : undefined;
    if (d) await this.workspaces.check(org, d);
    const inherit = d && ((trx: Db) => this.workspaces.apply(org.id, d, trx));
    return this.view(p, await this.orgs.update(org, patch, { ...tfcPatch(input), ...defaults }, inherit));
  }

  /**
   * Default execution mode and pool after a change, checked before anything is written. Like HCP
   * Terraform, a mode other than agent drops the default pool: tfe_organization_default_settings
   * resets by sending only `default-execution-mode: remote` and relies on that.
   */
  private async defaults(org: OrganizationRow, input: OrganizationInput) {
    const current = (await this.repo.tfcSettings(org.id)) ?? DEFAULT_TFC;
    const mode = input.defaultExecutionMode ?? current.default_execution_mode;
    const poolId =
      input.defaultAgentPoolId !== undefined
        ? input.defaultAgentPoolId
        : mode === 'agent'
          ? current.default_agent_pool_id
          : null;
    if (poolId) {
      if ((await this.pools.organizationOfPool(poolId)) !== org.id)
        throw new ValidationError(
          `Agent pool "${poolId}" does not exist in "${org.name}". The default agent pool must be a pool of this organization.`,
          poolPointer,
        );
      if (mode !== 'agent')
        throw new ValidationError(
          `A default agent pool needs default-execution-mode "agent" (got "${mode}"). Send default-execution-mode "agent" or leave out default-agent-pool.`,
          { field: 'default-execution-mode' },
        );
    }
    if (input.defaultExecutionMode === undefined && input.defaultAgentPoolId === undefined) return {};
    // Workspaces that inherit the mode would run on agents with no pool to take them.
    if (mode === 'agent' && !poolId)
      throw new ValidationError(
        'default-execution-mode "agent" needs a default-agent-pool: the pool whose agents run the workspaces that inherit it.',
        poolPointer,
      );
    return { default_execution_mode: mode, default_agent_pool_id: poolId };
  }

  /** Removes the organization; foreign keys cascade to projects, workspaces, pools, tokens, agents and boxes. */
  async delete(p: Caller, name: string): Promise<void> {
    const org = await this.access.visible(p, name);
    await this.orgs.requireOwner(p, org);
    await this.orgs.delete(org);
  }
}

function tfcPatch(i: OrganizationInput) {
  return {
    ...(i.collaboratorAuthPolicy !== undefined ? { collaborator_auth_policy: i.collaboratorAuthPolicy } : {}),
    ...(i.costEstimationEnabled !== undefined ? { cost_estimation_enabled: i.costEstimationEnabled ? 1 : 0 } : {}),
    ...(i.sessionRemember !== undefined ? { session_remember: i.sessionRemember } : {}),
    ...(i.sessionTimeout !== undefined ? { session_timeout: i.sessionTimeout } : {}),
    ...(i.ownersTeamSamlRoleId !== undefined ? { owners_team_saml_role_id: i.ownersTeamSamlRoleId } : {}),
    ...(i.defaultExecutionMode !== undefined ? { default_execution_mode: i.defaultExecutionMode } : {}),
  };
}
