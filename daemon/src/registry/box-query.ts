import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../store/schema';

export type Db = Kysely<Database> | Transaction<Database>;

/** Every box column plus the name of its owning user or organization. */
export function boxes(db: Db) {
  return db
    .selectFrom('boxes')
    .leftJoin('users', 'users.id', 'boxes.user_id')
    .leftJoin('organizations', 'organizations.id', 'boxes.organization_id')
    .selectAll('boxes')
    .select(sql<string>`coalesce(users.username, organizations.name)`.as('username'));
}
