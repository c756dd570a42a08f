import type { Clock } from '../lib/clock';
import type { IdGen } from '../lib/ids';
import { ConflictError } from '../lib/errors';
import type { Page } from '../http/jsonapi/pagination';
import type { Caller, OrganizationAccess } from '../orgs/access';
import type { AfterCreateHook } from '../orgs/service';
import type { OrganizationRow } from '../orgs/repository';
import { nameKey } from '../contract/names';
import type { WorkspacesRepository } from './repository';
import { present } from '../lib/invariant';

const DEFAULT_PROJECT = 'Default Project';

/** Projects group workspaces; every organization has a default one. Pools may allow whole projects. */
export class ProjectsService {
  constructor(
    private readonly access: OrganizationAccess,
    private readonly repo: WorkspacesRepository,
    private readonly clock: Clock,
    private readonly ids: IdGen,
  ) {}

  /**
   * Every organization's default project, made in the transaction that creates the organization
   * (an after-create hook of orgs/, registered in tfc-services.ts); organizations made before it
   * got theirs from migration 012. Reads never write.
   */
  readonly createDefault: AfterCreateHook = async (trx, org) => {
    await this.repo.insertProject(
      {
        id: this.ids.id('prj'),
        organization_id: org.id,
        name: DEFAULT_PROJECT,
        name_key: nameKey(DEFAULT_PROJECT),
        is_default: 1,
        created_at: org.created_at,
      },
      trx,
    );
  };

  async list(p: Caller, orgName: string, page: Page) {
    const org = await this.access.visible(p, orgName);
    return { org, ...(await this.repo.listProjects(org.id, page.offset, page.size)) };
  }

  async create(p: Caller, orgName: string, name: string) {
    const org = await this.access.visible(p, orgName);
    await this.assertFreeName(org, name);
    const id = this.ids.id('prj');
    await this.repo.insertProject({
      id,
      organization_id: org.id,
      name,
      name_key: nameKey(name),
      is_default: 0,
      created_at: this.clock.now().toISOString(),
    });
    return present(await this.repo.projectById(id), `project ${id} is read back after its insert`);
  }

  show = async (p: Caller, id: string) => this.access.member(p, await this.repo.projectById(id), `Project "${id}"`);

  /** go-tfe's Projects.Update: a new name, under the same rules as a new project's (the default project's too). */
  async update(p: Caller, id: string, input: { name?: string }) {
    const project = await this.show(p, id);
    if (input.name !== undefined && nameKey(input.name) !== project.name_key) {
      await this.assertFreeName(project.org, input.name);
    }
    if (input.name !== undefined)
      await this.repo.updateProject(id, { name: input.name, name_key: nameKey(input.name) });
    return present(await this.repo.projectById(id), `project ${id} is read back after its update`);
  }

  private async assertFreeName(org: OrganizationRow, name: string): Promise<void> {
    if (await this.repo.projectNamed(org.id, name)) {
      throw new ConflictError(`A project named "${name}" already exists in "${org.name}". Choose another name.`, {
        field: 'name',
      });
    }
  }

  async delete(p: Caller, id: string): Promise<void> {
    const project = await this.show(p, id);
    if (project.is_default)
      throw new ConflictError(`"${project.name}" is the organization's default project and cannot be deleted.`);
    const n = await this.repo.countWorkspacesInProject(id);
    if (n > 0)
      throw new ConflictError(`Project "${project.name}" still holds ${n} workspace(s). Move or delete them first.`);
    await this.repo.deleteProject(id);
  }
}
