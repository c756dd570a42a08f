import type { Kysely, Selectable, Insertable, Updateable } from 'kysely';
import type { Database } from '../store/schema';
import { nameKey } from '../contract/names';
import { contains } from '../store/like';
import type { Db } from '../auth/repository';
import type { ProjectsTable, WorkspacesTable } from './tables';
import { countRows } from '../store/count';

export type ProjectRow = Selectable<ProjectsTable>;
export type WorkspaceRow = Selectable<WorkspacesTable>;

/** The only SQL for projects and workspaces. */
export class WorkspacesRepository {
  constructor(private readonly db: Kysely<Database>) {}

  projectById(id: string) {
    return this.db
      .selectFrom('projects')
      .innerJoin('organizations', 'organizations.id', 'projects.organization_id')
      .selectAll('projects')
      .select('organizations.name as organization_name')
      .where('projects.id', '=', id)
      .executeTakeFirst();
  }
  projectsByIds(orgId: string, ids: readonly string[]) {
    if (ids.length === 0) return Promise.resolve([] as ProjectRow[]);
    return this.db
      .selectFrom('projects')
      .selectAll()
      .where('organization_id', '=', orgId)
      .where('id', 'in', ids)
      .execute();
  }
  projectNamed(orgId: string, name: string) {
    return this.db
      .selectFrom('projects')
      .selectAll()
      .where('organization_id', '=', orgId)
      .where('name_key', '=', nameKey(name))
      .executeTakeFirst();
  }
  defaultProject(orgId: string) {
    return this.db
      .selectFrom('projects')
      .selectAll()
      .where('organization_id', '=', orgId)
      .where('is_default', '=', 1)
      .executeTakeFirst();
  }
  async listProjects(orgId: string, offset: number, limit: number) {
    const base = this.db.selectFrom('projects').where('organization_id', '=', orgId);
    const rows = await base.selectAll().orderBy('created_at').orderBy('id').offset(offset).limit(limit).execute();
    return { rows, total: await countRows(base) };
  }
  async insertProject(row: Insertable<ProjectsTable>, db: Db = this.db) {
    await db.insertInto('projects').values(row).execute();
  }
  async updateProject(id: string, patch: Updateable<ProjectsTable>) {
    await this.db.updateTable('projects').set(patch).where('id', '=', id).execute();
  }
  async deleteProject(id: string) {
    await this.db.deleteFrom('projects').where('id', '=', id).execute();
  }
  async countWorkspacesInProject(projectId: string) {
    const r = await this.db
      .selectFrom('workspaces')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('project_id', '=', projectId)
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  workspaceById(id: string) {
    return this.db
      .selectFrom('workspaces')
      .innerJoin('organizations', 'organizations.id', 'workspaces.organization_id')
      .selectAll('workspaces')
      .select('organizations.name as organization_name')
      .where('workspaces.id', '=', id)
      .executeTakeFirst();
  }
  workspacesByIds(orgId: string, ids: readonly string[]) {
    if (ids.length === 0) return Promise.resolve([] as WorkspaceRow[]);
    return this.db
      .selectFrom('workspaces')
      .selectAll()
      .where('organization_id', '=', orgId)
      .where('id', 'in', ids)
      .execute();
  }
  workspaceNamed(orgId: string, name: string) {
    return this.db
      .selectFrom('workspaces')
      .selectAll()
      .where('organization_id', '=', orgId)
      .where('name_key', '=', nameKey(name))
      .executeTakeFirst();
  }
  async listWorkspaces(orgId: string, opts: { search?: string; offset: number; limit: number }) {
    let base = this.db.selectFrom('workspaces').where('organization_id', '=', orgId);
    if (opts.search) base = base.where(contains('workspaces.name_key', nameKey(opts.search)));
    const rows = await base.selectAll().orderBy('name_key').offset(opts.offset).limit(opts.limit).execute();
    return { rows, total: await countRows(base) };
  }
  async insertWorkspace(row: Insertable<WorkspacesTable>) {
    await this.db.insertInto('workspaces').values(row).execute();
  }
  async updateWorkspace(id: string, patch: Updateable<WorkspacesTable>, db: Db = this.db) {
    await db.updateTable('workspaces').set(patch).where('id', '=', id).execute();
  }
  /** An organization's workspaces that take its execution mode or its pool, by name. */
  inheritingWorkspaces(orgId: string, db: Db = this.db) {
    return db
      .selectFrom('workspaces')
      .selectAll()
      .where('organization_id', '=', orgId)
      .where((eb) => eb.or([eb('execution_mode_overwritten', '=', 0), eb('agent_pool_overwritten', '=', 0)]))
      .orderBy('name_key')
      .execute();
  }
  async deleteWorkspace(id: string) {
    await this.db.deleteFrom('workspaces').where('id', '=', id).execute();
  }
}
