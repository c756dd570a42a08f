import type { Clock } from '../lib/clock';
import type { IdGen } from '../lib/ids';
import { hashPassword } from '../lib/crypto';
import { ConflictError, ForbiddenError, NotFoundError } from '../http/errors';
import { AccountRepository, nameKey, type OrganizationRow, type UserRow } from './repository';

/** Who is calling: a user reached through an API token, or nobody. */
export type Principal = { user: UserRow; tokenId: string } | null;

/** A box namespace: a user or an organization. */
export type Namespace =
  | { kind: 'user'; id: string; name: string; user: UserRow }
  | { kind: 'organization'; id: string; name: string; organization: OrganizationRow };

/** Users, organizations, memberships and who may manage what. */
export class AccountService {
  constructor(
    private readonly repo: AccountRepository,
    private readonly clock: Clock,
    private readonly ids: IdGen,
  ) {}

  private now = () => this.clock.now().toISOString();

  async assertNameFree(name: string): Promise<void> {
    if ((await this.repo.userByName(name)) || (await this.repo.orgByName(name))) {
      throw new ConflictError(`The name "${name}" is already taken by a user or organization.`);
    }
  }

  async createUser(input: { username: string; password: string; email?: string | null; admin?: boolean }): Promise<UserRow> {
    await this.assertNameFree(input.username);
    if (input.email && (await this.repo.userByLogin(input.email))) throw new ConflictError(`The e-mail address "${input.email}" is already in use.`);
    const now = this.now();
    const row = {
      id: this.ids.id('user'),
      username: input.username,
      username_key: nameKey(input.username),
      email: input.email ?? null,
      email_key: input.email ? nameKey(input.email) : null,
      password_hash: await hashPassword(input.password),
      is_admin: input.admin ? 1 : 0,
      created_at: now,
      updated_at: now,
    };
    await this.repo.insertUser(row);
    return (await this.repo.userById(row.id))!;
  }

  /** First run: creates the administrator when there are no users. Returns the password if generated. */
  async ensureAdmin(username: string, password: string | undefined): Promise<{ created: boolean; generatedPassword?: string }> {
    if ((await this.repo.countUsers()) > 0) return { created: false };
    const pw = password ?? this.ids.secret(12);
    await this.createUser({ username, password: pw, admin: true });
    return { created: true, generatedPassword: password ? undefined : pw };
  }

  async setPassword(user: UserRow, password: string): Promise<void> {
    await this.repo.updateUser(user.id, { password_hash: await hashPassword(password), updated_at: this.now() });
  }

  async updateUser(user: UserRow, patch: { email?: string | null; profile_markdown?: string; is_admin?: boolean }): Promise<UserRow> {
    await this.repo.updateUser(user.id, {
      ...(patch.email !== undefined ? { email: patch.email, email_key: patch.email ? nameKey(patch.email) : null } : {}),
      ...(patch.profile_markdown !== undefined ? { profile_markdown: patch.profile_markdown } : {}),
      ...(patch.is_admin !== undefined ? { is_admin: patch.is_admin ? 1 : 0 } : {}),
      updated_at: this.now(),
    });
    return (await this.repo.userById(user.id))!;
  }

  async userNamed(name: string): Promise<UserRow> {
    const u = await this.repo.userByName(name);
    if (!u) throw new NotFoundError(`User "${name}" not found.`);
    return u;
  }

  listUsers = () => this.repo.listUsers();
  deleteUser = (user: UserRow) => this.repo.deleteUser(user.id);

  async createOrganization(input: { name: string; email?: string | null }, owner: UserRow | null): Promise<OrganizationRow> {
    await this.assertNameFree(input.name);
    const now = this.now();
    const row = { id: this.ids.id('org'), name: input.name, name_key: nameKey(input.name), email: input.email ?? null, created_at: now, updated_at: now };
    await this.repo.insertOrganization(row, owner?.id ?? null);
    return (await this.repo.orgByName(input.name))!;
  }

  organizationNamed = (name: string) => this.repo.orgByName(name);
  listOrganizations = (p: NonNullable<Principal>) => this.repo.listOrganizations(p.user.is_admin ? null : p.user.id);
  listMembers = (org: OrganizationRow) => this.repo.listMembers(org.id);

  async updateOrganization(org: OrganizationRow, patch: Partial<Pick<OrganizationRow, 'email' | 'profile_markdown' | 'agent_pool_limit' | 'name'>>) {
    if (patch.name !== undefined && nameKey(patch.name) !== org.name_key) await this.assertNameFree(patch.name);
    await this.repo.updateOrganization(org.id, {
      ...patch,
      ...(patch.name !== undefined ? { name_key: nameKey(patch.name) } : {}),
      updated_at: this.now(),
    });
    return (await this.repo.orgByName(patch.name ?? org.name))!;
  }
  deleteOrganization = (org: OrganizationRow) => this.repo.deleteOrganization(org.id);

  async setMember(org: OrganizationRow, username: string, role: 'owner' | 'member') {
    const user = await this.userNamed(username);
    await this.repo.upsertMembership(org.id, user.id, role, this.now());
  }

  async removeMember(org: OrganizationRow, username: string) {
    const user = await this.userNamed(username);
    const owners = (await this.repo.listMembers(org.id)).filter((m) => m.role === 'owner');
    if (owners.length === 1 && owners[0].user_id === user.id) {
      throw new ConflictError(`"${username}" is the last owner of "${org.name}". Make another member an owner first.`);
    }
    await this.repo.deleteMembership(org.id, user.id);
  }

  /** A user or organization by name, or undefined. */
  async namespace(name: string): Promise<Namespace | undefined> {
    const user = await this.repo.userByName(name);
    if (user) return { kind: 'user', id: user.id, name: user.username, user };
    const organization = await this.repo.orgByName(name);
    if (organization) return { kind: 'organization', id: organization.id, name: organization.name, organization };
    return undefined;
  }

  /** Administrators, the user itself, or any member of the organization. */
  isMember(p: Principal, ns: Namespace): Promise<boolean> {
    return this.actsFor(p, ns.kind === 'user' ? { user_id: ns.id, organization_id: null } : { user_id: null, organization_id: ns.id });
  }

  /** `isMember` for an owner known by id (a box row's), without loading the user or organization. */
  async actsFor(p: Principal, owner: { user_id: string | null; organization_id: string | null }): Promise<boolean> {
    if (!p) return false;
    if (p.user.is_admin) return true;
    if (owner.user_id !== null) return owner.user_id === p.user.id;
    return owner.organization_id !== null && (await this.repo.membership(owner.organization_id, p.user.id)) !== undefined;
  }

  /** Administrators and organization owners. */
  async isOwner(p: Principal, org: OrganizationRow): Promise<boolean> {
    if (!p) return false;
    if (p.user.is_admin) return true;
    return (await this.repo.membership(org.id, p.user.id))?.role === 'owner';
  }

  async requireOwner(p: Principal, org: OrganizationRow): Promise<void> {
    if (!(await this.isOwner(p, org))) throw new ForbiddenError(`Only owners of "${org.name}" may do this.`);
  }
}
