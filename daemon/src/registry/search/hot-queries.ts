import type { Kysely } from 'kysely';
import type { Database } from '../../store/schema';
import { PreparedIdList, prepare } from '../../store/cache/prepared';
import { cachedLoad, cachedQuery } from '../../store/cache/read-cache';
import type { TableClock } from '../../store/cache/table-clock';
import { boxes } from '../box-query';
import { groupBy } from '../../lib/group-by';
import { sortByGemVersionDesc } from '../versions/gem-version';
import type { ProviderRow, VersionDetail, VersionRow } from '../tables';

type JoinedRow = VersionRow & { [K in keyof ProviderRow as `p_${K & string}`]: ProviderRow[K] | null };

/**
 * Versions in the order of their rows, each with its providers (by name), from the rows of a
 * versions-with-providers join (provider columns prefixed `p_`, a version's rows together).
 */
function groupJoined(rows: JoinedRow[]): VersionDetail[] {
  const versions: VersionRow[] = [];
  const providers: ProviderRow[] = [];
  for (const {
    p_id,
    p_name,
    p_architecture,
    p_default_architecture,
    p_url,
    p_checksum,
    p_checksum_type,
    p_blob_sha256,
    p_size,
    p_source_url,
    p_created_at,
    p_updated_at,
    ...v
  } of rows) {
    if (versions[versions.length - 1]?.id !== v.id) versions.push(v);
    if (p_id === null) continue;
    // The join made every provider column nullable; a provider's own are NOT NULL in box_providers.
    if (
      p_name === null ||
      p_architecture === null ||
      p_default_architecture === null ||
      p_created_at === null ||
      p_updated_at === null
    )
      throw new Error(`Provider ${p_id} was read without its name, architecture or times, which it always has.`);
    providers.push({
      id: p_id,
      version_id: v.id,
      name: p_name,
      architecture: p_architecture,
      default_architecture: p_default_architecture,
      url: p_url,
      checksum: p_checksum,
      checksum_type: p_checksum_type,
      blob_sha256: p_blob_sha256,
      size: p_size,
      source_url: p_source_url,
      created_at: p_created_at,
      updated_at: p_updated_at,
    });
  }
  const byVersion = groupBy(providers, (p) => p.version_id);
  return versions.map((version) => ({ version, providers: byVersion.get(version.id) ?? [] }));
}

/** A box's versions, newest (by Ruby Gem ordering) first, each with its providers (by name). */
const splitJoined = (rows: JoinedRow[]): VersionDetail[] =>
  sortByGemVersionDesc(groupJoined(rows), (d) => d.version.version);

/** Versions with their providers in one query, provider columns prefixed (splitJoined splits them). */
const joined = (db: Kysely<Database>) =>
  db
    .selectFrom('box_versions as v')
    .leftJoin('box_providers as p', 'p.version_id', 'v.id')
    .selectAll('v')
    .select([
      'p.id as p_id',
      'p.name as p_name',
      'p.architecture as p_architecture',
      'p.default_architecture as p_default_architecture',
      'p.url as p_url',
      'p.checksum as p_checksum',
      'p.checksum_type as p_checksum_type',
      'p.blob_sha256 as p_blob_sha256',
      'p.size as p_size',
      'p.source_url as p_source_url',
      'p.created_at as p_created_at',
      'p.updated_at as p_updated_at',
    ]);
const ordered = <Q extends ReturnType<typeof joined>>(q: Q) =>
  q.orderBy('v.created_at').orderBy('v.id').orderBy('p.name').orderBy('p.created_at').orderBy('p.id');

/**
 * The released version vagrant would pick of each box (the highest active one), if any: what
 * search pages and namespace listings show (details.ts loadSummaries). Two queries whatever the
 * number of boxes: the numbers of the released versions (the highest is picked here, since SQL
 * cannot order Ruby Gem versions), then the picked rows with their providers (one statement,
 * since each is a round trip on PostgreSQL). Each box's is kept in memory until the
 * tables those two read change.
 */
function currentVersions(db: Kysely<Database>, tables: TableClock) {
  const activeNumbers = new PreparedIdList(db, (boxIds) =>
    db
      .selectFrom('box_versions')
      .select(['id', 'box_id', 'version'])
      .where('box_id', 'in', boxIds)
      .where('status', '=', 'active')
      .orderBy('box_id')
      .orderBy('created_at')
      .orderBy('id'),
  );
  const byIds = new PreparedIdList(db, (ids) => ordered(joined(db).where('v.id', 'in', ids)));
  const load = async (boxIds: string[]): Promise<Map<string, VersionDetail>> => {
    const numbers = await activeNumbers.all(boxIds);
    const picked = [...groupBy(numbers, (v) => v.box_id).values()].map(
      (vs) => sortByGemVersionDesc(vs, (v) => v.version)[0].id,
    );
    const details = groupJoined((await byIds.all(picked)) as JoinedRow[]);
    return new Map(details.map((d) => [d.version.box_id, d]));
  };
  const cache = cachedLoad<[string], VersionDetail | undefined>(
    tables,
    [activeNumbers, byIds],
    async (id) => (await load([id])).get(id),
    5000,
  );
  return (boxIds: readonly string[]): Promise<Array<VersionDetail | undefined>> => cache.getMany(boxIds, load);
}

/**
 * The registry's lookups by path, built and compiled once per repository (store/cache/prepared.ts):
 * a catalog request makes them all, and building them cost more than running them. A box by its
 * path, its versions and its current version are kept in memory until their tables change
 * (store/cache/read-cache.ts).
 */
export function hotQueries(db: Kysely<Database>, tables: TableClock) {
  const withProviders = (boxId: string) => joined(db).where('v.box_id', '=', boxId);
  return {
    /** User and organization names never collide, so at most one owner matches. */
    boxByPath: cachedQuery(
      tables,
      prepare(db, (ownerKey: string, nameKey: string) =>
        boxes(db)
          .where('boxes.name_key', '=', nameKey)
          .where((eb) =>
            eb.or([
              eb(
                'boxes.user_id',
                '=',
                eb.selectFrom('users as u').select('u.id').where('u.username_key', '=', ownerKey),
              ),
              eb(
                'boxes.organization_id',
                '=',
                eb.selectFrom('organizations as o').select('o.id').where('o.name_key', '=', ownerKey),
              ),
            ]),
          ),
      ),
      (rows) => rows[0],
      5000,
      [],
    ), // its raw SQL (the owner's name) reads the tables joined
    // A box's versions: all (its managers), published (released and revoked: anyone else), released (the catalog).
    versionsOfBox: {
      all: cachedQuery(
        tables,
        prepare(db, (boxId: string) => ordered(withProviders(boxId))),
        (rows) => splitJoined(rows as JoinedRow[]),
        500,
      ),
      published: cachedQuery(
        tables,
        prepare(db, (boxId: string) => ordered(withProviders(boxId).where('v.status', '<>', 'unreleased'))),
        (rows) => splitJoined(rows as JoinedRow[]),
        1000,
      ),
      active: cachedQuery(
        tables,
        prepare(db, (boxId: string) => ordered(withProviders(boxId).where('v.status', '=', 'active'))),
        (rows) => splitJoined(rows as JoinedRow[]),
        1000,
      ),
    },
    currentVersions: currentVersions(db, tables),
    providersOfVersions: new PreparedIdList(db, (ids) =>
      db
        .selectFrom('box_providers')
        .selectAll()
        .where('version_id', 'in', ids)
        .orderBy('name')
        .orderBy('created_at')
        .orderBy('id'),
    ),
  };
}
