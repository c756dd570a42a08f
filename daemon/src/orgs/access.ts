import type { Principal } from '../auth/accounts-service';
import { NotFoundError } from '../lib/errors';
import type { OrganizationRow } from './repository';
import type { OrgService } from './service';

export type Caller = NonNullable<Principal>;

/**
 * Who may see which organization, in every API that names one (the agents API, /api/boxyard):
 * members and administrators; to anyone else it does not exist (404).
 */
export class OrganizationAccess {
  constructor(private readonly orgs: Pick<OrgService, 'named' | 'isMember' | 'isOwner' | 'actsFor'>) {}

  /** The organization if the caller is a member; 404 if it does not exist or the caller may not see it. */
  async visible(p: Caller, name: string): Promise<OrganizationRow> {
    const org = await this.orgs.named(name);
    if (!org || !(await this.isMember(p, org))) {
      throw new NotFoundError(`Organization "${name}" not found (or you are not a member of it).`);
    }
    return org;
  }

  isMember(p: Caller, org: OrganizationRow): Promise<boolean> {
    return this.orgs.isMember(p, { kind: 'organization', id: org.id, name: org.name, organization: org });
  }

  isOwner = (p: Caller, org: OrganizationRow) => this.orgs.isOwner(p, org);

  /** `member` without loading the organization: for reads that need only the row itself. */
  async visibleRow<T extends { organization_id: string }>(p: Caller, row: T | undefined, what: string): Promise<T> {
    if (row && (await this.orgs.actsFor(p, { user_id: null, organization_id: row.organization_id }))) return row;
    throw new NotFoundError(`${what} not found (or you are not a member of its organization).`);
  }

  /**
   * The row with its organization, or 404 naming `what` when it is missing or the caller is not a member of its
   * organization.
   */
  async member<T extends { organization_name: string }>(
    p: Caller,
    row: T | undefined,
    what: string,
  ): Promise<T & { org: OrganizationRow }> {
    if (row) {
      const org = await this.orgs.named(row.organization_name);
      if (org && (await this.isMember(p, org))) return { ...row, org };
    }
    throw new NotFoundError(`${what} not found (or you are not a member of its organization).`);
  }
}
