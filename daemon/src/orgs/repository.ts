import { inTransaction } from '../store/transaction';
import { sql, type Kysely, type Selectable, type Transaction, type Updateable } from 'kysely';
import type { Database } from '../store/schema';
import type { Db } from '../auth/repository';
import { nameKey } from '../contract/names';
import { prepare } from '../store/cache/prepared';
import { cachedQuery, type ReadCache } from '../store/cache/read-cache';
import type { TableClock } from '../store/cache/table-clock';
import type { MembershipsTable, OrganizationTfcSettingsTable, OrganizationsTable } from './tables';
import { countRows } from '../store/count';

export type OrganizationRow = Selectable<OrganizationsTable>;
export type MembershipRow = Selectable<MembershipsTable>;
export type TfcSettingsRow = Selectable<OrganizationTfcSettingsTable>;
export type TfcSettingsPatch = Omit<Updateable<OrganizationTfcSettingsTable>, 'organization_id'>;
export type Role = MembershipRow['role'];

/** The only SQL for organizations, memberships and organizations' HCP Terraform settings. */
export class OrgsRepository {
  // Box reads and every agents-API request ask for an organization by name and for a membership:
  // kept in memory until their tables change (store/cache/read-cache.ts).
  private readonly orgByNameQuery: ReadCache<[string], OrganizationRow | undefined>;
  private readonly membershipQuery: ReadCache<[string, string], MembershipRow | undefined>;

  constructor(
    private readonly db: Kysely<Database>,
    versions: TableClock,
  ) {
    const first = <R>(rows: R[]) => rows[0];
    this.orgByNameQuery = cachedQuery(
      versions,
      prepare(db, (key: string) => db.selectFrom('organizations').selectAll().where('name_key', '=', key)),
      first,
    );
    this.membershipQuery = cachedQuery(
      versions,
      prepare(db, (orgId: string, userId: string) =>
        db.selectFrom('memberships').selectAll().where('organization_id', '=', orgId).where('user_id', '=', userId),
      ),
      first,
    );
  }

  /**
   * Runs `fn` in one transaction; an error inside undoes everything it wrote. Inside, every query
   * goes through `trx`: SQLite has one connection, which the transaction holds until it ends.
   */
  transaction<T>(fn: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
    return inTransaction(this.db, fn);
  }

  orgByName(name: string) {
    return this.orgByNameQuery.get(nameKey(name));
  }
  /** Whether an organization holds this name (auth/ asks before it creates a user: one name space). */
  async nameTaken(name: string): Promise<boolean> {
    return (await this.orgByName(name)) !== undefined;
  }
  orgById(id: string, db: Db = this.db) {
    return db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  }
  async insertOrganization(row: Omit<OrganizationRow, 'profile_markdown'>, db: Db) {
    await db.insertInto('organizations').values(row).execute();
  }
  async updateOrganization(id: string, patch: Partial<Omit<OrganizationRow, 'id'>>, db: Db = this.db) {
    await db.updateTable('organizations').set(patch).where('id', '=', id).execute();
  }
  async deleteOrganization(id: string) {
    await this.db.deleteFrom('organizations').where('id', '=', id).execute();
  }
  /** Organizations the user belongs to (all of them for `null`, meaning an administrator). */
  listOrganizations(userId: string | null) {
    let q = this.db.selectFrom('organizations').selectAll('organizations').orderBy('organizations.name_key');
    if (userId)
      q = q
        .innerJoin('memberships', 'memberships.organization_id', 'organizations.id')
        .where('memberships.user_id', '=', userId);
    return q.execute();
  }

  /**
   * A page of the organizations a user belongs to (all of them for `null`, an administrator), by
   * name, each with its TFC settings (null when it has none) and the user's role: one query and a count.
   */
  async organizationsPage(userId: string | null, offset: number, limit: number) {
    let base = this.db.selectFrom('organizations');
    if (userId)
      base = base.innerJoin('memberships as m', (j) =>
        j.onRef('m.organization_id', '=', 'organizations.id').on('m.user_id', '=', userId),
      );
    const total = await countRows(base);
    const rows =
      total <= offset
        ? []
        : await base
            .leftJoin('organization_tfc_settings as t', 't.organization_id', 'organizations.id')
            .selectAll('organizations')
            .select([
              't.collaborator_auth_policy',
              't.cost_estimation_enabled',
              't.session_remember',
              't.session_timeout',
              't.owners_team_saml_role_id',
              't.default_execution_mode',
              't.default_agent_pool_id',
            ])
            .select(userId ? sql<string | null>`m.role`.as('role') : sql<string | null>`null`.as('role'))
            .orderBy('organizations.name_key')
            .limit(limit)
            .offset(offset)
            .execute();
    return { rows, total };
  }

  tfcSettings(orgId: string) {
    return this.db
      .selectFrom('organization_tfc_settings')
      .selectAll()
      .where('organization_id', '=', orgId)
      .executeTakeFirst();
  }
  async saveTfcSettings(orgId: string, patch: TfcSettingsPatch, db: Db = this.db) {
    await db
      .insertInto('organization_tfc_settings')
      .values({ organization_id: orgId, ...patch })
      .onConflict((oc) =>
        Object.keys(patch).length ? oc.column('organization_id').doUpdateSet(patch) : oc.doNothing(),
      )
      .execute();
  }

  membership(orgId: string, userId: string) {
    return this.membershipQuery.get(orgId, userId);
  }
  listMembers(orgId: string) {
    return this.db
      .selectFrom('memberships')
      .innerJoin('users', 'users.id', 'memberships.user_id')
      .select(['users.username', 'memberships.role', 'memberships.created_at', 'users.id as user_id'])
      .where('memberships.organization_id', '=', orgId)
      .orderBy('users.username_key')
      .execute();
  }
  async upsertMembership(orgId: string, userId: string, role: Role, now: string, db: Db = this.db) {
    await db
      .insertInto('memberships')
      .values({ organization_id: orgId, user_id: userId, role, created_at: now })
      .onConflict((oc) => oc.columns(['organization_id', 'user_id']).doUpdateSet({ role }))
      .execute();
  }
  async deleteMembership(orgId: string, userId: string, db: Db = this.db) {
    await db.deleteFrom('memberships').where('organization_id', '=', orgId).where('user_id', '=', userId).execute();
  }
  roleIn(orgId: string, userId: string, db: Db): Promise<Role | undefined> {
    return db
      .selectFrom('memberships')
      .select('role')
      .where('organization_id', '=', orgId)
      .where('user_id', '=', userId)
      .executeTakeFirst()
      .then((r) => r?.role);
  }
  countOwners(orgId: string, db: Db) {
    return db
      .selectFrom('memberships')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('organization_id', '=', orgId)
      .where('role', '=', 'owner')
      .executeTakeFirstOrThrow()
      .then((r) => Number(r.n));
  }
  /** Names of the organizations whose only owner is this user (auth/ asks before it deletes one). */
  async soleOwnerOf(userId: string, db: Db = this.db): Promise<string[]> {
    const rows = await db
      .selectFrom('memberships as m')
      .innerJoin('organizations as o', 'o.id', 'm.organization_id')
      .select('o.name')
      .where('m.user_id', '=', userId)
      .where('m.role', '=', 'owner')
      .where(
        (eb) =>
          eb
            .selectFrom('memberships as x')
            .select((x) => x.fn.countAll<number>().as('n'))
            .whereRef('x.organization_id', '=', 'm.organization_id')
            .where('x.role', '=', 'owner'),
        '=',
        1,
      )
      .orderBy('o.name_key')
      .execute();
    return rows.map((r) => r.name);
  }
}
