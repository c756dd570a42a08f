import type { Clock } from '../lib/clock';
import type { IdGen } from '../lib/ids';
import { sha256Hex } from '../lib/crypto';
import { lastUseIsStale, PresentedSecrets } from './presented-secrets';
import { TwoFactorRequiredError, UnauthorizedError } from '../lib/errors';
import type { AttemptGuard } from '../http/guards/rate-limit';
import type { AccountRepository, UserRow } from './repository';
import type { Principal } from './accounts-service';
import type { TwoFactorService } from './two-factor/two-factor';
import type { PasswordService } from './passwords';
import type { ServicePrincipalService } from './service-principals/service';

export interface CreatedToken {
  id: string;
  description: string;
  token: string;
  token_hash: string;
  created_at: string;
}

/** A web UI session's token: what the user's token list calls it, and how long it lasts (its cookie's life). */
export interface SessionSpec {
  description: string;
  seconds: number;
}

interface LoginInput {
  login: string;
  password: string;
  code?: string | null;
  description?: string | null;
  /** The token is the web UI's session (ui/session-routes.ts). */
  session?: SessionSpec;
}

/** Logins, API tokens (stored as SHA-256 hashes) and resolving a presented token. */
export class TokenService {
  constructor(
    private readonly repo: AccountRepository,
    private readonly twoFactor: TwoFactorService,
    private readonly passwords: PasswordService,
    private readonly clock: Clock,
    private readonly ids: IdGen,
    private readonly principals: Pick<ServicePrincipalService, 'resolve'>,
  ) {}

  /** `POST /two-factor/request-code`: the password, then an SMS code to the user's phone; answers where it went. */
  requestSmsCode(input: { login: string; password: string }, guard: AttemptGuard): Promise<string> {
    return this.passwords.signIn(input.login, input.password, guard, (user) => this.twoFactor.sendSms(user));
  }

  /** `POST /authenticate`: password, then two-factor when enabled, then a new token; all of it counted by `guard`. */
  login(input: LoginInput, guard: AttemptGuard): Promise<CreatedToken> {
    return this.passwords.signIn(input.login, input.password, guard, (user) => this.secondFactor(user, input));
  }

  private async secondFactor(user: UserRow, input: LoginInput): Promise<CreatedToken> {
    const methods = await this.twoFactor.methods(user);
    if (methods.length > 0) {
      if (!input.code) {
        throw new TwoFactorRequiredError(
          `Two-factor authentication is enabled for this account: send two_factor.code (delivery methods: ${methods.join(', ')}).`,
          { deliveryMethods: methods },
        );
      }
      if (!(await this.twoFactor.verify(user, input.code))) {
        throw new UnauthorizedError(
          'The two-factor code is wrong, expired or already used. Request or generate a new one.',
        );
      }
    }
    return input.session
      ? this.create(user, input.session.description, input.session)
      : this.create(user, input.description ?? '');
  }

  /**
   * A new token of the user. A web UI session's ends with its cookie, and making one first deletes
   * every session that has ended, anyone's: they would otherwise pile up in the token lists.
   */
  async create(user: UserRow, description: string, session?: SessionSpec): Promise<CreatedToken> {
    const token = this.ids.secret(32);
    const now = this.clock.now();
    const row = {
      id: this.ids.id('tok'),
      user_id: user.id,
      token_hash: sha256Hex(token),
      description,
      created_at: now.toISOString(),
      last_used_at: null,
      session: session ? 1 : 0,
      expires_at: session ? new Date(now.getTime() + session.seconds * 1000).toISOString() : null,
    };
    if (session) await this.repo.deleteExpiredTokens(row.created_at);
    await this.repo.insertToken(row);
    return { id: row.id, description, token, token_hash: row.token_hash, created_at: row.created_at };
  }

  /** The principal a presented secret stands for (a user's token or a service principal's), or null if unknown. */
  async resolve(secret: string): Promise<Principal> {
    const hash = this.secrets.hashOf(secret);
    const found = await this.repo.tokenWithUser(hash);
    // Not a user's: a service principal's, or nobody's.
    if (!found) return this.principals.resolve(hash);
    const { token: row, user } = found;
    const now = this.clock.now();
    // ISO times in UTC compare as text. An ended session is refused before the next sign-in deletes it.
    if (row.expires_at !== null && row.expires_at <= now.toISOString()) return null;
    if (lastUseIsStale(row.last_used_at, now)) {
      await this.repo.touchToken(row.id, now.toISOString());
    }
    return { user, tokenId: row.id };
  }

  private readonly secrets = new PresentedSecrets();

  list = (user: UserRow) => this.repo.listTokens(user.id);
  revoke = (tokenId: string, userId?: string) => this.repo.deleteToken(tokenId, userId);
}
