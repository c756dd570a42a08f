import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../../store/schema';
import { prepare } from '../../store/cache/prepared';
import { cachedQuery, type ReadCache } from '../../store/cache/read-cache';
import type { TableClock } from '../../store/cache/table-clock';
import type { CachedBoxesTable } from '../tables';

export type CachedBoxRow = Selectable<CachedBoxesTable>;

/** The only SQL of the pull-through cache's boxes: which local boxes it made, from which upstream. */
export class CacheRepository {
  /** Every catalog request asks whether the cache made its box: kept until cached_boxes changes. */
  private readonly cachedBoxQuery: ReadCache<[string], CachedBoxRow | undefined>;

  constructor(
    private readonly db: Kysely<Database>,
    versions: TableClock,
  ) {
    this.cachedBoxQuery = cachedQuery(
      versions,
      prepare(db, (boxId: string) => db.selectFrom('cached_boxes').selectAll().where('box_id', '=', boxId)),
      (rows) => rows[0],
      5000,
    );
  }

  cachedBox(boxId: string): Promise<CachedBoxRow | undefined> {
    return this.cachedBoxQuery.get(boxId);
  }
  async upsertCachedBox(row: CachedBoxRow) {
    await this.db
      .insertInto('cached_boxes')
      .values(row)
      .onConflict((oc) => oc.column('box_id').doUpdateSet({ synced_at: row.synced_at, upstream_id: row.upstream_id }))
      .execute();
  }
  /** What the cache holds: its boxes, and the files stored for them (a file two providers share counts once). */
  async cacheSize(): Promise<{ boxes: number; files: number; bytes: number }> {
    const boxes = await this.db
      .selectFrom('cached_boxes')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const files = await this.db
      .selectFrom((eb) =>
        eb
          .selectFrom('cached_boxes')
          .innerJoin('box_versions', 'box_versions.box_id', 'cached_boxes.box_id')
          .innerJoin('box_providers', 'box_providers.version_id', 'box_versions.id')
          .where('box_providers.blob_sha256', 'is not', null)
          .select(['box_providers.blob_sha256', 'box_providers.size'])
          .distinct()
          .as('f'),
      )
      .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.sum<number>('f.size').as('bytes')])
      .executeTakeFirstOrThrow();
    return { boxes: Number(boxes.n), files: Number(files.n), bytes: Number(files.bytes ?? 0) };
  }
  /** Cached boxes with their owner's name and how many of their providers are stored. */
  cachedBoxes() {
    return this.db
      .selectFrom('cached_boxes')
      .innerJoin('boxes', 'boxes.id', 'cached_boxes.box_id')
      .leftJoin('users', 'users.id', 'boxes.user_id')
      .leftJoin('organizations', 'organizations.id', 'boxes.organization_id')
      .leftJoin('upstreams', 'upstreams.id', 'cached_boxes.upstream_id')
      .select((eb) => [
        'cached_boxes.box_id',
        'cached_boxes.source',
        'cached_boxes.synced_at',
        'boxes.name',
        'boxes.private',
        'boxes.user_id',
        'boxes.organization_id',
        eb.fn.coalesce('users.username', 'organizations.name').as('username'),
        'upstreams.id as upstream_id',
        'upstreams.name as upstream_name',
        'upstreams.url as upstream_url',
        eb
          .selectFrom('box_providers')
          .innerJoin('box_versions', 'box_versions.id', 'box_providers.version_id')
          .whereRef('box_versions.box_id', '=', 'boxes.id')
          .select((e) => e.fn.countAll<number>().as('n'))
          .as('providers_total'),
        eb
          .selectFrom('box_providers')
          .innerJoin('box_versions', 'box_versions.id', 'box_providers.version_id')
          .whereRef('box_versions.box_id', '=', 'boxes.id')
          .where('box_providers.blob_sha256', 'is not', null)
          .select((e) => e.fn.countAll<number>().as('n'))
          .as('providers_cached'),
      ])
      .orderBy('boxes.name_key')
      .execute();
  }
}
