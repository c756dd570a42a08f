import type { PasswordHasher } from '../lib/crypto';
import type { AttemptGuard } from '../http/guards/rate-limit';
import { ReauthenticationError, UnauthorizedError, ValidationError } from '../lib/errors';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../contract/bodies/accounts';
import { nameKey } from '../contract/names';
import type { AccountRepository, UserRow } from './repository';
import type { TwoFactorService } from './two-factor/two-factor';

/** Refuses passwords that are too short (or absurdly long) with a message that says what is needed. */
export function checkPasswordPolicy(password: string, field = 'password'): void {
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw new ValidationError(
      `${field} must be at least ${MIN_PASSWORD_LENGTH} characters; a few words make a good one.`,
    );
  }
  if (password.length > MAX_PASSWORD_LENGTH)
    throw new ValidationError(`${field} must be at most ${MAX_PASSWORD_LENGTH} characters.`);
}

/** What a signed-in user shows to change a credential: the current password, or a current two-factor code. */
export interface Proof {
  current_password?: string | null;
  current_code?: string | null;
}

/** The key an account's attempts are counted under: the user when the login names one, else the login as typed. */
const accountKey = (user: UserRow | undefined, login: string) => (user ? `user:${user.id}` : `login:${nameKey(login)}`);

/** Passwords: the policy, new hashes, checking a login, and re-authenticating a signed-in user. */
export class PasswordService {
  constructor(
    private readonly repo: AccountRepository,
    private readonly hasher: PasswordHasher,
    private readonly twoFactor: TwoFactorService,
  ) {}

  /** The hash of a new password that meets the policy. */
  async hashNew(password: string): Promise<string> {
    checkPasswordPolicy(password);
    return this.hasher.hash(password);
  }

  /**
   * Checks a login (username or e-mail) and password inside `guard`'s count, then runs `then` for
   * the user, also counted (a wrong two-factor code is a failed attempt too). Unknown logins get
   * the same 401 after the same work: a hash is derived either way.
   */
  async signIn<T>(
    login: string,
    password: string,
    guard: AttemptGuard,
    then: (user: UserRow) => Promise<T>,
  ): Promise<T> {
    const user = await this.repo.userByLogin(login);
    return guard.attempt(accountKey(user, login), async () => {
      if (!(await this.matches(user, password)) || !user)
        throw new UnauthorizedError('Invalid username, e-mail or password.');
      return then(user);
    });
  }

  /**
   * A signed-in user proves it is still them before a credential changes: the current password,
   * or a code of their two-factor method. Wrong proofs count like failed logins.
   */
  async reauthenticate(user: UserRow, proof: Proof, guard: AttemptGuard, what: string): Promise<void> {
    const { current_password: password, current_code: code } = proof;
    if (!password && !code) {
      throw new ReauthenticationError(
        `${what} needs your current password: send current_password (or current_code, a code of your two-factor method).`,
      );
    }
    await guard.attempt(accountKey(user, user.username), async () => {
      const fresh = await this.repo.userById(user.id);
      const ok = password
        ? await this.matches(fresh, password)
        : // Without a password there is a code (checked above).
          !!code && (await this.twoFactor.methods(user)).length > 0 && (await this.twoFactor.verify(user, code));
      if (!ok)
        throw new ReauthenticationError(
          `The current ${password ? 'password' : 'two-factor code'} is wrong: nothing was changed.`,
        );
    });
  }

  /** Whether the password is the user's (work is done for no user too); a hash of older parameters is replaced. */
  private async matches(user: UserRow | undefined, password: string): Promise<boolean> {
    const check = await this.hasher.verify(password, user?.password_hash);
    if (user && check.rehash)
      await this.repo.replacePasswordHash(user.id, user.password_hash, await this.hasher.hash(password));
    return user !== undefined && check.ok;
  }
}
