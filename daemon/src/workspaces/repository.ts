import { sql, type Kysely, type Selectable, type Insertable, type Updateable } from 'kysely';
import type { Database } from '../store/schema';
import { nameKey } from '../auth/names';
import { contains } from '../store/like';
import type { OrganizationTfcSettingsTable } from '../orgs/tables';
import type { ProjectsTable, WorkspacesTable } from './tables';

export type ProjectRow = Selectable<ProjectsTable>;
export type WorkspaceRow = Selectable<WorkspacesTable>;
export type TfcSettingsRow = Selectable<OrganizationTfcSettingsTable>;


/** The only SQL for HCP Terraform organization attributes, projects and workspaces. */
export class WorkspacesRepository {
  constructor(private readonly db: Kysely<Database>) {}

  tfcSettings(orgId: string) {
    return this.db.selectFrom('organization_tfc_settings').selectAll().where('organization_id', '=', orgId).executeTakeFirst();
  }
  async saveTfcSettings(orgId: string, patch: Omit<Updateable<OrganizationTfcSettingsTable>, 'organization_id'>) {
    await this.db.insertInto('organization_tfc_settings').values({ organization_id: orgId, ...patch })
      .onConflict((oc) => (Object.keys(patch).length ? oc.column('organization_id').doUpdateSet(patch) : oc.doNothing())).execute();
  }

  /**
   * A page of the organizations a user belongs to (all of them for `null`, an administrator), by
   * name, each with its TFC settings (null when it has none yet) and the user's role: one query
   * and a count, where the list used to load every organization and then ask two queries of each.
   */
  async organizationsPage(userId: string | null, offset: number, limit: number) {
    let base = this.db.selectFrom('organizations');
    if (userId) base = base.innerJoin('memberships as m', (j) => j.onRef('m.organization_id', '=', 'organizations.id').on('m.user_id', '=', userId));
    const total = Number((await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    const rows = total <= offset ? [] : await base.leftJoin('organization_tfc_settings as t', 't.organization_id', 'organizations.id')
      .selectAll('organizations')
      .select(['t.organization_id as tfc_organization_id', 't.collaborator_auth_policy', 't.cost_estimation_enabled', 't.session_remember',
        't.session_timeout', 't.owners_team_saml_role_id', 't.default_execution_mode', 't.default_agent_pool_id'])
      .select(userId ? sql<string | null>`m.role`.as('role') : sql<string | null>`null`.as('role'))
      .orderBy('organizations.name_key').limit(limit).offset(offset).execute();
    return { rows, total };
  }

  projectById(id: string) {
    return this.db.selectFrom('projects').innerJoin('organizations', 'organizations.id', 'projects.organization_id')
      .selectAll('projects').select('organizations.name as organization_name').where('projects.id', '=', id).executeTakeFirst();
  }
  projectsByIds(orgId: string, ids: readonly string[]) {
    if (ids.length === 0) return Promise.resolve([] as ProjectRow[]);
    return this.db.selectFrom('projects').selectAll().where('organization_id', '=', orgId).where('id', 'in', ids).execute();
  }
  projectNamed(orgId: string, name: string) {
    return this.db.selectFrom('projects').selectAll().where('organization_id', '=', orgId).where('name_key', '=', nameKey(name)).executeTakeFirst();
  }
  defaultProject(orgId: string) {
    return this.db.selectFrom('projects').selectAll().where('organization_id', '=', orgId).where('is_default', '=', 1).executeTakeFirst();
  }
  async listProjects(orgId: string, offset: number, limit: number) {
    const base = this.db.selectFrom('projects').where('organization_id', '=', orgId);
    const rows = await base.selectAll().orderBy('created_at').orderBy('id').offset(offset).limit(limit).execute();
    const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return { rows, total: Number(total.n) };
  }
  async insertProject(row: Insertable<ProjectsTable>) {
    await this.db.insertInto('projects').values(row).onConflict((oc) => oc.doNothing()).execute();
  }
  async deleteProject(id: string) {
    await this.db.deleteFrom('projects').where('id', '=', id).execute();
  }
  async countWorkspacesInProject(projectId: string) {
    const r = await this.db.selectFrom('workspaces').select((eb) => eb.fn.countAll<number>().as('n')).where('project_id', '=', projectId).executeTakeFirstOrThrow();
    return Number(r.n);
  }

  workspaceById(id: string) {
    return this.db.selectFrom('workspaces').innerJoin('organizations', 'organizations.id', 'workspaces.organization_id')
      .selectAll('workspaces').select('organizations.name as organization_name').where('workspaces.id', '=', id).executeTakeFirst();
  }
  workspacesByIds(orgId: string, ids: readonly string[]) {
    if (ids.length === 0) return Promise.resolve([] as WorkspaceRow[]);
    return this.db.selectFrom('workspaces').selectAll().where('organization_id', '=', orgId).where('id', 'in', ids).execute();
  }
  workspaceNamed(orgId: string, name: string) {
    return this.db.selectFrom('workspaces').selectAll().where('organization_id', '=', orgId).where('name_key', '=', nameKey(name)).executeTakeFirst();
  }
  async listWorkspaces(orgId: string, opts: { search?: string; offset: number; limit: number }) {
    let base = this.db.selectFrom('workspaces').where('organization_id', '=', orgId);
    if (opts.search) base = base.where(contains('workspaces.name_key', nameKey(opts.search)));
    const rows = await base.selectAll().orderBy('name_key').offset(opts.offset).limit(opts.limit).execute();
    const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return { rows, total: Number(total.n) };
  }
  async insertWorkspace(row: Insertable<WorkspacesTable>) {
    await this.db.insertInto('workspaces').values(row).execute();
  }
  async updateWorkspace(id: string, patch: Updateable<WorkspacesTable>) {
    await this.db.updateTable('workspaces').set(patch).where('id', '=', id).execute();
  }
  async deleteWorkspace(id: string) {
    await this.db.deleteFrom('workspaces').where('id', '=', id).execute();
  }
}
