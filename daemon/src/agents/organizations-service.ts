import type { AccountService } from '../auth/accounts-service';
import type { OrganizationRow } from '../auth/repository';
import type { Clock } from '../lib/clock';
import type { IdGen } from '../lib/ids';
import type { OrganizationAccess, Caller } from './access';
import type { TfcSettingsRow, WorkspacesRepository } from './workspaces-repository';
import { nameKey } from './workspaces-repository';

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
}

const DEFAULT_TFC = { collaborator_auth_policy: 'password', cost_estimation_enabled: 0, session_remember: null, session_timeout: null, owners_team_saml_role_id: null };

/** Organizations as HCP Terraform shows them: the shared account rows plus TFC attributes and a default project. */
export class OrganizationsService {
  constructor(
    private readonly accounts: AccountService,
    private readonly access: OrganizationAccess,
    private readonly repo: WorkspacesRepository,
    private readonly clock: Clock,
    private readonly ids: IdGen,
  ) {}

  async view(p: Caller, org: OrganizationRow): Promise<OrganizationView> {
    const row = await this.repo.tfcSettings(org.id);
    const { organization_id: _, ...tfc } = row ?? { organization_id: org.id, ...DEFAULT_TFC };
    return { org, tfc, isOwner: await this.access.isOwner(p, org) };
  }

  /** The organization's default project, created on first use (organizations also come from the box API and the CLI). */
  async defaultProject(org: OrganizationRow) {
    const found = await this.repo.defaultProject(org.id);
    if (found) return found;
    await this.repo.insertProject({ id: this.ids.id('prj'), organization_id: org.id, name: 'Default Project', name_key: nameKey('Default Project'), is_default: 1, created_at: this.clock.now().toISOString() });
    return (await this.repo.defaultProject(org.id))!;
  }

  async create(p: Caller, input: OrganizationInput & { name: string }): Promise<OrganizationView> {
    const org = await this.accounts.createOrganization({ name: input.name, email: input.email ?? null }, p.user);
    const updated = input.agentPoolLimit !== undefined ? await this.accounts.updateOrganization(org, { agent_pool_limit: input.agentPoolLimit }) : org;
    await this.repo.saveTfcSettings(org.id, tfcPatch(input));
    await this.defaultProject(updated);
    return this.view(p, updated);
  }

  show = async (p: Caller, name: string) => this.view(p, await this.access.visible(p, name));

  async list(p: Caller): Promise<OrganizationView[]> {
    const orgs = await this.accounts.listOrganizations(p);
    return Promise.all(orgs.map((o) => this.view(p, o)));
  }

  async update(p: Caller, name: string, input: OrganizationInput): Promise<OrganizationView> {
    const org = await this.access.visible(p, name);
    await this.accounts.requireOwner(p, org);
    const patch = {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.email !== undefined ? { email: input.email } : {}),
      ...(input.agentPoolLimit !== undefined ? { agent_pool_limit: input.agentPoolLimit } : {}),
    };
    const updated = await this.accounts.updateOrganization(org, patch);
    await this.repo.saveTfcSettings(org.id, tfcPatch(input));
    return this.view(p, updated);
  }

  /** Removes the organization; foreign keys cascade to projects, workspaces, pools, tokens, agents and boxes. */
  async delete(p: Caller, name: string): Promise<void> {
    const org = await this.access.visible(p, name);
    await this.accounts.requireOwner(p, org);
    await this.accounts.deleteOrganization(org);
  }
}

function tfcPatch(i: OrganizationInput) {
  return {
    ...(i.collaboratorAuthPolicy !== undefined ? { collaborator_auth_policy: i.collaboratorAuthPolicy } : {}),
    ...(i.costEstimationEnabled !== undefined ? { cost_estimation_enabled: i.costEstimationEnabled ? 1 : 0 } : {}),
    ...(i.sessionRemember !== undefined ? { session_remember: i.sessionRemember } : {}),
    ...(i.sessionTimeout !== undefined ? { session_timeout: i.sessionTimeout } : {}),
    ...(i.ownersTeamSamlRoleId !== undefined ? { owners_team_saml_role_id: i.ownersTeamSamlRoleId } : {}),
  };
}
