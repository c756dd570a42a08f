import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../../store/schema';
import { inTransaction } from '../../store/transaction';
import { prepare } from '../../store/cache/prepared';
import { cachedQuery, type ReadCache } from '../../store/cache/read-cache';
import type { TableClock } from '../../store/cache/table-clock';
import type { ServicePrincipalsTable, ServicePrincipalTokensTable } from './tables';

export type ServicePrincipalRow = Selectable<ServicePrincipalsTable>;
export type PrincipalTokenRow = Selectable<ServicePrincipalTokensTable>;

/** A principal's token as resolved: the token's id and end, and the principal it stands for. */
export interface PrincipalToken {
  token: Pick<PrincipalTokenRow, 'id' | 'expires_at'>;
  principal: ServicePrincipalRow;
}

/** The only SQL for service principals and their tokens. */
export class ServicePrincipalRepository {
  // Every request with an unknown API token asks here next: kept in memory until the tables change.
  private readonly tokenQuery: ReadCache<[string], PrincipalToken | undefined>;

  constructor(
    private readonly db: Kysely<Database>,
    versions: TableClock,
  ) {
    this.tokenQuery = cachedQuery(
      versions,
      prepare(db, (hash: string) =>
        db
          .selectFrom('service_principal_tokens')
          .innerJoin('service_principals', 'service_principals.id', 'service_principal_tokens.principal_id')
          .selectAll('service_principals')
          .select([
            'service_principal_tokens.id as token_id',
            'service_principal_tokens.expires_at as token_expires_at',
          ])
          .where('service_principal_tokens.token_hash', '=', hash),
      ),
      (rows) => {
        if (!rows[0]) return undefined;
        const { token_id, token_expires_at, ...principal } = rows[0];
        return { token: { id: token_id, expires_at: token_expires_at }, principal };
      },
    );
  }

  tokenByHash = (hash: string) => this.tokenQuery.get(hash);

  byClientId = (clientId: string) =>
    this.db.selectFrom('service_principals').selectAll().where('client_id', '=', clientId).executeTakeFirst();

  byId = (id: string) => this.db.selectFrom('service_principals').selectAll().where('id', '=', id).executeTakeFirst();

  listOf = (organizationId: string) =>
    this.db
      .selectFrom('service_principals')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .orderBy('created_at')
      .orderBy('client_id')
      .execute();

  async insert(row: ServicePrincipalRow): Promise<void> {
    await this.db.insertInto('service_principals').values(row).execute();
  }

  /** Deletes the principal of this organization, and its tokens with it (a foreign key); false when there is none. */
  async delete(organizationId: string, clientId: string): Promise<boolean> {
    const r = await this.db
      .deleteFrom('service_principals')
      .where('organization_id', '=', organizationId)
      .where('client_id', '=', clientId)
      .executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  /**
   * A new token and the principal's last use, in one transaction; tokens of any principal that ended before
   * `forgetBefore` are deleted with it.
   */
  async issue(token: PrincipalTokenRow, now: string, forgetBefore: string): Promise<void> {
    await inTransaction(this.db, async (trx) => {
      await trx.deleteFrom('service_principal_tokens').where('expires_at', '<=', forgetBefore).execute();
      await trx.insertInto('service_principal_tokens').values(token).execute();
      await trx
        .updateTable('service_principals')
        .set({ last_used_at: now })
        .where('id', '=', token.principal_id)
        .execute();
    });
  }
}
