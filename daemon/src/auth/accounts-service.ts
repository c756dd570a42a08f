import type { Transaction } from 'kysely';
import type { Database } from '../store/schema';
import type { Clock } from '../lib/clock';
import type { IdGen } from '../lib/ids';
import { ConflictError, ForbiddenError, LastAdminError, LastOwnerError, NotFoundError } from '../lib/errors';
import type { AttemptGuard } from '../http/guards/rate-limit';
import { isUniqueViolation } from '../store/storage-errors';
import { nameKey } from '../contract/names';
import type { AccountRepository, Db, UserRow } from './repository';
import { checkPasswordPolicy, type PasswordService, type Proof } from './passwords';
import { present } from '../lib/invariant';

/**
 * A service principal's token (auth/service-principals/): it publishes to one organization's boxes and nothing else.
 * Its `user` is a stand-in (the principal's id and client id, no rights of its own): `requireUser` refuses it, and the
 * registry's rules (orgs/service.ts actsFor) read this instead of memberships.
 */
export interface PrincipalScope {
  principalId: string;
  clientId: string;
  organizationId: string;
}

/** Who is calling: a user (or a service principal) reached through a token, or nobody. */
export type Principal = { user: UserRow; tokenId: string; scope?: PrincipalScope } | null;

/**
 * Whose rights an action uses: a caller (a Principal), or a user recorded earlier and read again
 * now (`AccountService.actor`: an upload URL's issuer at its PUT, the user a mirror runs as), who
 * presents no token. Access rules (orgs/service.ts actsFor, registry/access.ts) take this.
 */
export type Acting = { user: UserRow; scope?: PrincipalScope } | null;

/**
 * What auth/ asks of organizations, which share the users' name space and have users as owners.
 * orgs/ answers it (OrgsRepository, wired in deps.ts), so auth/ imports nothing of orgs/.
 */
export interface OrganizationsPort {
  /** Whether an organization holds this name. */
  nameTaken(name: string): Promise<boolean>;
  /** In the transaction that deletes the user: the organizations whose only owner they are. */
  soleOwnerOf(userId: string, trx: Transaction<Database>): Promise<string[]>;
}

/** What `PATCH /api/boxyard/users/:name` may change. */
export interface UserPatch {
  email?: string | null;
  profile_markdown?: string;
  admin?: boolean;
  password?: string;
}

/** One change of a user row, written in one transaction with the rules that guard it. */
interface UserChange {
  email?: string | null;
  profile_markdown?: string;
  is_admin?: boolean;
  password_hash?: string;
  /** With a new password: the user's tokens are revoked, all but this one (null: all). */
  keepToken?: string | null;
}

const emailTaken = (email: string) =>
  new ConflictError(`The e-mail address "${email}" is already in use by another user. Choose another one.`);

/** Users, administrators and their passwords (organizations, members and owners: orgs/service.ts). */
export class AccountService {
  constructor(
    private readonly repo: AccountRepository,
    private readonly passwords: PasswordService,
    private readonly clock: Clock,
    private readonly ids: IdGen,
    private readonly orgs: OrganizationsPort,
    /** Service principals recorded as an upload URL's issuer (auth/service-principals/service.ts). */
    private readonly principals: { actor(id: string): Promise<Acting> },
  ) {}

  private now = () => this.clock.now().toISOString();

  /** Users and organizations share one name space (their names stand first in box URLs). */
  async assertNameFree(name: string): Promise<void> {
    if ((await this.repo.userByName(name)) || (await this.orgs.nameTaken(name))) {
      throw new ConflictError(`The name "${name}" is already taken by a user or organization.`);
    }
  }

  async createUser(input: {
    username: string;
    password: string;
    email?: string | null;
    admin?: boolean;
  }): Promise<UserRow> {
    const password_hash = await this.passwords.hashNew(input.password);
    await this.assertNameFree(input.username);
    if (input.email && (await this.repo.userByLogin(input.email))) throw emailTaken(input.email);
    const now = this.now();
    const row = {
      id: this.ids.id('user'),
      username: input.username,
      username_key: nameKey(input.username),
      email: input.email ?? null,
      email_key: input.email ? nameKey(input.email) : null,
      password_hash,
      is_admin: input.admin ? 1 : 0,
      created_at: now,
      updated_at: now,
    };
    try {
      await this.repo.insertUser(row);
    } catch (err) {
      if (isUniqueViolation(err))
        throw new ConflictError(
          `The name "${input.username}" or e-mail address is already in use. Choose another one.`,
        );
      throw err;
    }
    return present(await this.repo.userById(row.id), `user ${row.id} is read back after its insert`);
  }

  /** First run: creates the administrator when there are no users. Returns the password if generated. */
  async ensureAdmin(
    username: string,
    password: string | undefined,
  ): Promise<{ created: boolean; generatedPassword?: string }> {
    if ((await this.repo.countUsers()) > 0) return { created: false };
    if (password !== undefined)
      checkPasswordPolicy(password, "BOXYARD_ADMIN_PASSWORD (the first administrator's password)");
    // 18 random bytes: 24 characters, past the 12-character minimum.
    const pw = password ?? this.ids.secret(18);
    await this.createUser({ username, password: pw, admin: true });
    return { created: true, generatedPassword: password ? undefined : pw };
  }

  /**
   * A user changes their own account, or an administrator another's (not the password: that is
   * `resetPassword`). A new password or e-mail address of one's own needs the current password or a
   * two-factor code; a new password revokes the user's other tokens. All or nothing.
   */
  async updateUser(
    actor: NonNullable<Principal>,
    target: UserRow,
    patch: UserPatch,
    proof: Proof,
    guard: AttemptGuard,
  ): Promise<UserRow> {
    const self = actor.user.id === target.id;
    if (patch.admin !== undefined && !actor.user.is_admin)
      throw new ForbiddenError('Only administrators may change who is an administrator.');
    if (patch.password !== undefined && !self) {
      throw new ForbiddenError(
        `Administrators set another user's password with PUT /api/boxyard/users/${target.username}/password.`,
      );
    }
    const password_hash = patch.password !== undefined ? await this.passwords.hashNew(patch.password) : undefined;
    const newEmail = patch.email !== undefined && (patch.email ? nameKey(patch.email) : null) !== target.email_key;
    if (self && (password_hash || newEmail)) {
      await this.passwords.reauthenticate(
        target,
        proof,
        guard,
        password_hash ? 'Changing the password' : 'Changing the e-mail address',
      );
    }
    return this.change(target, {
      email: patch.email,
      profile_markdown: patch.profile_markdown,
      is_admin: patch.admin,
      password_hash,
      keepToken: self ? actor.tokenId : null,
    });
  }

  /**
   * An administrator (or `boxyard user password` on the server) sets a user's password; all their tokens are revoked.
   */
  async resetPassword(target: UserRow, password: string, actor?: NonNullable<Principal>): Promise<UserRow> {
    if (actor && actor.user.id === target.id) {
      throw new ForbiddenError(
        `Change your own password with PATCH /api/boxyard/users/${target.username} and your current_password.`,
      );
    }
    return this.change(target, { password_hash: await this.passwords.hashNew(password), keepToken: null });
  }

  /** Makes a user an administrator or not (`boxyard user admin`); the last administrator stays one. */
  setAdmin = (target: UserRow, admin: boolean) => this.change(target, { is_admin: admin });

  private async change(target: UserRow, c: UserChange): Promise<UserRow> {
    try {
      await this.repo.transaction(async (trx) => {
        if (c.is_admin === false && target.is_admin) await this.assertOtherAdmin(target, trx);
        if (c.email) {
          const holder = await this.repo.emailOwner(nameKey(c.email), trx);
          if (holder && holder.id !== target.id) throw emailTaken(c.email);
        }
        await this.repo.updateUser(
          target.id,
          {
            ...(c.email !== undefined ? { email: c.email, email_key: c.email ? nameKey(c.email) : null } : {}),
            ...(c.profile_markdown !== undefined ? { profile_markdown: c.profile_markdown } : {}),
            ...(c.is_admin !== undefined ? { is_admin: c.is_admin ? 1 : 0 } : {}),
            ...(c.password_hash !== undefined ? { password_hash: c.password_hash } : {}),
            updated_at: this.now(),
          },
          trx,
        );
        if (c.password_hash !== undefined) await this.repo.deleteTokensOf(target.id, c.keepToken ?? null, trx);
      });
    } catch (err) {
      // Another request took the address between the check and the write.
      if (isUniqueViolation(err) && c.email) throw emailTaken(c.email);
      throw err;
    }
    return present(await this.repo.userById(target.id), `user ${target.id} is read back after its update`);
  }

  private async assertOtherAdmin(target: UserRow, db: Db): Promise<void> {
    if ((await this.repo.countAdmins(db)) <= 1) {
      throw new LastAdminError(
        `"${target.username}" is the last administrator. Make another user an administrator first.`,
      );
    }
  }

  async userNamed(name: string): Promise<UserRow> {
    const u = await this.repo.userByName(name);
    if (!u) throw new NotFoundError(`User "${name}" not found.`);
    return u;
  }

  /** A user by name, or undefined. */
  findUser = (name: string) => this.repo.userByName(name);

  /**
   * A user (or service principal) recorded by id, as they are now (administrator or not), to act with their current
   * rights; null when there is none or they were deleted (revoked).
   */
  async actor(userId: string | null): Promise<Acting> {
    if (userId === null) return null;
    const user = await this.repo.userById(userId);
    return user ? { user } : this.principals.actor(userId);
  }
  listUsers = () => this.repo.listUsers();
  /**
   * Usernames starting with what was typed, for any signed-in user (adding a member finds them as they type): a
   * username is no secret, as every user's profile answers anyone (`GET /api/v1/user/:username`). Ten at most.
   */
  usernamesStartingWith = (prefix: string) => this.repo.usernamesStartingWith(prefix, 10);

  /** Removes a user, unless they are the last administrator or the last owner of an organization. */
  async deleteUser(user: UserRow): Promise<void> {
    await this.repo.transaction(async (trx) => {
      if (user.is_admin) await this.assertOtherAdmin(user, trx);
      const orgs = await this.orgs.soleOwnerOf(user.id, trx);
      if (orgs.length > 0) {
        throw new LastOwnerError(
          `"${user.username}" is the last owner of ${orgs.map((o) => `"${o}"`).join(', ')}. Make another member an owner, or delete the organization, first.`,
        );
      }
      await this.repo.deleteUser(user.id, trx);
    });
  }
}
