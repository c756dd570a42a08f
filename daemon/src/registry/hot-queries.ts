import type { Kysely } from 'kysely';
import type { Database } from '../store/schema';
import { prepare } from '../store/prepared';
import { boxes } from './box-query';

/**
 * The registry's lookups by path, built and compiled once per repository (store/prepared.ts):
 * a catalog request makes them all, and building them cost more than running them.
 */
export function hotQueries(db: Kysely<Database>) {
  const versions = (boxId: string) => db.selectFrom('box_versions').selectAll().where('box_id', '=', boxId);
  const providers = (boxId: string) => db.selectFrom('box_providers').innerJoin('box_versions as v', 'v.id', 'box_providers.version_id')
    .selectAll('box_providers').where('v.box_id', '=', boxId);
  return {
    /** User and organization names never collide, so at most one owner matches. */
    boxByPath: prepare(db, (ownerKey: string, nameKey: string) => boxes(db).where('boxes.name_key', '=', nameKey).where((eb) => eb.or([
      eb('boxes.user_id', '=', eb.selectFrom('users as u').select('u.id').where('u.username_key', '=', ownerKey)),
      eb('boxes.organization_id', '=', eb.selectFrom('organizations as o').select('o.id').where('o.name_key', '=', ownerKey)),
    ]))),
    versionsOfBox: prepare(db, (boxId: string) => versions(boxId).orderBy('created_at').orderBy('id')),
    activeVersionsOfBox: prepare(db, (boxId: string) => versions(boxId).where('status', '=', 'active').orderBy('created_at').orderBy('id')),
    providersOfBox: prepare(db, (boxId: string) => providers(boxId)
      .orderBy('box_providers.name').orderBy('box_providers.created_at').orderBy('box_providers.id')),
    activeProvidersOfBox: prepare(db, (boxId: string) => providers(boxId).where('v.status', '=', 'active')
      .orderBy('box_providers.name').orderBy('box_providers.created_at').orderBy('box_providers.id')),
  };
}
