import type { Transaction } from 'kysely';
import type { Database } from '../store/schema';
import type { AccountService, Acting, Principal } from '../auth/accounts-service';
import type { Db, UserRow } from '../auth/repository';
import { nameKey } from '../contract/names';
import type { Clock } from '../lib/clock';
import type { IdGen } from '../lib/ids';
import { ConflictError, ForbiddenError, LastOwnerError } from '../lib/errors';
import { isUniqueViolation } from '../store/storage-errors';
import type { OrganizationRow, OrgsRepository, Role, TfcSettingsPatch } from './repository';
import { present } from '../lib/invariant';

/** A box namespace: a user or an organization. */

/**
 * Agent pools an organization may hold until an owner sets its agent-pool-limit. HCP Terraform's free tier allows
 * one, which stopped a lab at its second pool over a limit it never set; clients still read and set the attribute.
 * Migration 023 raised organizations still at the old default of 1 to this.
 */
export const DEFAULT_AGENT_POOL_LIMIT = 100;
export type Namespace =
  | { kind: 'user'; id: string; name: string; user: UserRow }
  | { kind: 'organization'; id: string; name: string; organization: OrganizationRow };

/**
 * Another module's part of every new organization (workspaces/: the default project), registered
 * at wiring time (tfc-services.ts) so that orgs/ imports none of them; OTF's organization
 * after-create hooks. It runs in the transaction that creates the organization, after its row,
 * its owner and its settings are written, and throwing undoes the whole creation. Every query goes
 * through `trx`: SQLite has one connection, which the transaction holds, so a query on the
 * database itself would wait for it forever.
 */
export type AfterCreateHook = (trx: Transaction<Database>, org: OrganizationRow) => Promise<void>;

export interface NewOrganization {
  name: string;
  email?: string | null;
  agentPoolLimit?: number;
  /** HCP Terraform settings other than their defaults (the JSON:API's create). */
  tfc?: TfcSettingsPatch;
}

export type OrganizationPatch = Partial<
  Pick<OrganizationRow, 'name' | 'email' | 'profile_markdown' | 'agent_pool_limit'>
>;

const taken = (name: string) => new ConflictError(`The name "${name}" is already taken by a user or organization.`);

/**
 * Organizations, their members and owners: the one place that creates, changes and deletes them,
 * whichever API, command or cache asks (the box API's /api/boxyard, the JSON:API, `boxyard org`,
 * mirrors and the pull-through cache); and whom a namespace belongs to.
 */
export class OrgService {
  private readonly hooks: AfterCreateHook[] = [];

  constructor(
    private readonly repo: OrgsRepository,
    private readonly accounts: Pick<AccountService, 'assertNameFree' | 'findUser' | 'userNamed' | 'actor'>,
    private readonly clock: Clock,
    private readonly ids: IdGen,
  ) {}

  private now = () => this.clock.now().toISOString();

  /** Adds a hook that every creation runs, in registration order, inside its transaction. */
  afterCreate(hook: AfterCreateHook): void {
    this.hooks.push(hook);
  }

  /**
   * Creates an organization in one transaction: its row (with its agent-pool limit), the owner's
   * membership when there is an owner (the pull-through cache's organizations have none), its
   * HCP Terraform settings, then every after-create hook. All of it is written, or nothing.
   */
  async create(input: NewOrganization, owner: UserRow | null): Promise<OrganizationRow> {
    await this.accounts.assertNameFree(input.name);
    const now = this.now();
    const id = this.ids.id('org');
    try {
      await this.repo.transaction(async (trx) => {
        await this.repo.insertOrganization(
          {
            id,
            name: input.name,
            name_key: nameKey(input.name),
            email: input.email ?? null,
            created_at: now,
            updated_at: now,
            agent_pool_limit: input.agentPoolLimit ?? DEFAULT_AGENT_POOL_LIMIT,
          },
          trx,
        );
        if (owner) await this.repo.upsertMembership(id, owner.id, 'owner', now, trx);
        await this.repo.saveTfcSettings(id, input.tfc ?? {}, trx);
        const org = await this.repo.orgById(id, trx);
        for (const hook of this.hooks) await hook(trx, org);
      });
    } catch (err) {
      // Another request took the name between the check and the write.
      if (isUniqueViolation(err) && (await this.repo.orgByName(input.name))) throw taken(input.name);
      throw err;
    }
    return present(await this.repo.orgByName(input.name), `organization "${input.name}" is read back after its insert`);
  }

  /**
   * Changes the organization's row and its HCP Terraform settings together, and runs `within` in the same transaction.
   */
  async update(
    org: OrganizationRow,
    patch: OrganizationPatch,
    tfc?: TfcSettingsPatch,
    within?: (trx: Db) => Promise<void>,
  ): Promise<OrganizationRow> {
    const newName = patch.name !== undefined && nameKey(patch.name) !== org.name_key ? patch.name : undefined;
    if (newName !== undefined) await this.accounts.assertNameFree(newName);
    try {
      await this.repo.transaction(async (trx) => {
        await this.repo.updateOrganization(
          org.id,
          {
            ...patch,
            ...(patch.name !== undefined ? { name_key: nameKey(patch.name) } : {}),
            updated_at: this.now(),
          },
          trx,
        );
        if (tfc) await this.repo.saveTfcSettings(org.id, tfc, trx);
        await within?.(trx);
      });
    } catch (err) {
      if (newName !== undefined && isUniqueViolation(err)) throw taken(newName);
      throw err;
    }
    const name = patch.name ?? org.name;
    return present(await this.repo.orgByName(name), `organization "${name}" is read back after its update`);
  }

  /** Removes the organization; foreign keys cascade to memberships, projects, workspaces, pools, agents and boxes. */
  delete = (org: OrganizationRow) => this.repo.deleteOrganization(org.id);

  named = (name: string) => this.repo.orgByName(name);
  /** The caller's organizations; every one for an administrator. */
  list = (p: NonNullable<Principal>) => this.repo.listOrganizations(p.user.is_admin && !p.scope ? null : p.user.id);
  listAll = () => this.repo.listOrganizations(null);
  members = (org: OrganizationRow) => this.repo.listMembers(org.id);

  /** Adds a member or changes their role; the last owner cannot become a member. */
  async setMember(org: OrganizationRow, username: string, role: Role): Promise<void> {
    const user = await this.accounts.userNamed(username);
    await this.repo.transaction(async (trx) => {
      if (role === 'member') await this.assertOtherOwner(org, user, trx);
      await this.repo.upsertMembership(org.id, user.id, role, this.now(), trx);
    });
  }

  /** Removes a member; the last owner stays. */
  async removeMember(org: OrganizationRow, username: string): Promise<void> {
    const user = await this.accounts.userNamed(username);
    await this.repo.transaction(async (trx) => {
      await this.assertOtherOwner(org, user, trx);
      await this.repo.deleteMembership(org.id, user.id, trx);
    });
  }

  /** In the transaction that changes `user`'s membership: refuses when they are the organization's only owner. */
  private async assertOtherOwner(org: OrganizationRow, user: UserRow, db: Db): Promise<void> {
    if ((await this.repo.roleIn(org.id, user.id, db)) === 'owner' && (await this.repo.countOwners(org.id, db)) <= 1) {
      throw new LastOwnerError(
        `"${user.username}" is the last owner of "${org.name}". Make another member an owner first.`,
      );
    }
  }

  /** A user or organization by name, or undefined. */
  async namespace(name: string): Promise<Namespace | undefined> {
    const user = await this.accounts.findUser(name);
    if (user) return { kind: 'user', id: user.id, name: user.username, user };
    const organization = await this.repo.orgByName(name);
    if (organization) return { kind: 'organization', id: organization.id, name: organization.name, organization };
    return undefined;
  }

  /** A user recorded by id (an upload URL's issuer, the user a mirror runs as), with their rights as they are now. */
  actor = (userId: string | null): Promise<Acting> => this.accounts.actor(userId);

  /** Administrators, the user itself, or any member of the organization; a service principal: its organization. */
  isMember(p: Acting, ns: Namespace): Promise<boolean> {
    return this.actsFor(
      p,
      ns.kind === 'user' ? { user_id: ns.id, organization_id: null } : { user_id: null, organization_id: ns.id },
    );
  }

  /** `isMember` for an owner known by id (a box row's), without loading the user or organization. */
  async actsFor(p: Acting, owner: { user_id: string | null; organization_id: string | null }): Promise<boolean> {
    if (!p) return false;
    // A service principal acts for its organization only, whatever memberships say.
    if (p.scope) return owner.organization_id === p.scope.organizationId;
    if (p.user.is_admin) return true;
    if (owner.user_id !== null) return owner.user_id === p.user.id;
    return (
      owner.organization_id !== null && (await this.repo.membership(owner.organization_id, p.user.id)) !== undefined
    );
  }

  /** Administrators and organization owners; a service principal never. */
  async isOwner(p: Principal, org: OrganizationRow): Promise<boolean> {
    if (!p || p.scope) return false;
    if (p.user.is_admin) return true;
    return (await this.repo.membership(org.id, p.user.id))?.role === 'owner';
  }

  async requireOwner(p: Principal, org: OrganizationRow): Promise<void> {
    if (!(await this.isOwner(p, org))) throw new ForbiddenError(`Only owners of "${org.name}" may do this.`);
  }
}
