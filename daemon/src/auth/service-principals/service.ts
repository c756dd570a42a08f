import type { Clock } from '../../lib/clock';
import type { IdGen } from '../../lib/ids';
import { sha256Hex, safeEqual } from '../../lib/crypto';
import { NotFoundError, UnauthorizedError } from '../../lib/errors';
import type { AttemptGuard } from '../../http/guards/rate-limit';
import type { UserRow } from '../repository';
import type { Acting, Principal, PrincipalScope } from '../accounts-service';
import type { ServicePrincipalJson } from '../../contract/wire/accounts';
import type { ServicePrincipalRepository, ServicePrincipalRow } from './repository';

/** How long a token from POST /oauth2/token lasts: HCP's hour. */
export const PRINCIPAL_TOKEN_SECONDS = 3600;
/**
 * How long an ended token's row is kept: deleting it refuses the upload URLs it made (migration 025's trigger), which
 * live up to 30 days (`uploadTtlHours`) and may outlast the hour; the token itself stops working when it ends.
 */
const KEPT_AFTER_END_MS = 31 * 24 * 3_600_000;

/** What a principal is shown as: never its secret's hash. */
export const principalSummary = (row: ServicePrincipalRow): ServicePrincipalJson => ({
  client_id: row.client_id,
  name: row.name,
  created_at: row.created_at,
  last_used_at: row.last_used_at,
});

export interface IssuedToken {
  access_token: string;
  expires_in: number;
}

const scopeOf = (row: ServicePrincipalRow): PrincipalScope => ({
  principalId: row.id,
  clientId: row.client_id,
  organizationId: row.organization_id,
});

/**
 * The user row a principal's rights checks are handed: its id and client id, an administrator never, no password.
 * No membership names this id, so only the scope (orgs/service.ts actsFor) gives it any right.
 */
const standIn = (row: ServicePrincipalRow): UserRow => ({
  id: row.id,
  username: row.client_id,
  username_key: row.client_id.toLowerCase(),
  email: null,
  email_key: null,
  password_hash: '',
  is_admin: 0,
  profile_markdown: '',
  created_at: row.created_at,
  updated_at: row.created_at,
});

const INVALID = 'The client id or secret is wrong, or the service principal was revoked.';

/**
 * Service principals: an organization's client id and secret (the secret shown once, stored as its sha256), the
 * client-credentials exchange for an hour's bearer token (stored as its sha256 too), and what such a token stands
 * for. Who may create, list and revoke them is orgs/'s rule (orgs/service-principal-routes.ts, orgs/cli-principals.ts).
 */
export class ServicePrincipalService {
  constructor(
    private readonly repo: ServicePrincipalRepository,
    private readonly clock: Clock,
    private readonly ids: IdGen,
  ) {}

  private now = () => this.clock.now().toISOString();

  /** A new principal of the organization, with its secret: the only time the secret is known. */
  async create(organizationId: string, name: string): Promise<{ principal: ServicePrincipalRow; secret: string }> {
    const secret = this.ids.secret(32);
    const row: ServicePrincipalRow = {
      id: this.ids.id('sp'),
      client_id: this.ids.id(''),
      secret_hash: sha256Hex(secret),
      organization_id: organizationId,
      name,
      created_at: this.now(),
      last_used_at: null,
    };
    await this.repo.insert(row);
    return { principal: row, secret };
  }

  list = (organizationId: string) => this.repo.listOf(organizationId);

  /** Deletes the principal, and every token it was given: they stop working at once. */
  async revoke(organizationId: string, organizationName: string, clientId: string): Promise<void> {
    if (!(await this.repo.delete(organizationId, clientId))) {
      throw new NotFoundError(`Organization "${organizationName}" has no service principal "${clientId}".`);
    }
  }

  /**
   * `POST /oauth2/token`: the client's id and secret for a new token, counted by `guard` as a login is (a wrong
   * secret stays counted). An unknown client and a wrong secret get the same answer after the same work.
   */
  exchange(clientId: string, secret: string, guard: AttemptGuard, challenge?: string): Promise<IssuedToken> {
    return guard.attempt(`sp:${clientId}`, async () => {
      const row = await this.repo.byClientId(clientId);
      const presented = sha256Hex(secret);
      if (!safeEqual(presented, row?.secret_hash ?? '') || !row) {
        throw new UnauthorizedError(INVALID, challenge ? { challenge } : {});
      }
      const token = this.ids.secret(32);
      const now = this.clock.now();
      await this.repo.issue(
        {
          id: this.ids.id('sptok'),
          principal_id: row.id,
          token_hash: sha256Hex(token),
          created_at: now.toISOString(),
          expires_at: new Date(now.getTime() + PRINCIPAL_TOKEN_SECONDS * 1000).toISOString(),
        },
        now.toISOString(),
        new Date(now.getTime() - KEPT_AFTER_END_MS).toISOString(),
      );
      return { access_token: token, expires_in: PRINCIPAL_TOKEN_SECONDS };
    });
  }

  /** The principal a presented token's hash stands for; null when unknown, ended or revoked. */
  async resolve(hash: string): Promise<Principal> {
    const found = await this.repo.tokenByHash(hash);
    if (!found || found.token.expires_at <= this.now()) return null;
    return { user: standIn(found.principal), tokenId: found.token.id, scope: scopeOf(found.principal) };
  }

  /** A principal recorded by id (an upload URL's issuer), as it is now; null once revoked. */
  async actor(id: string): Promise<Acting> {
    const row = await this.repo.byId(id);
    return row ? { user: standIn(row), scope: scopeOf(row) } : null;
  }
}
