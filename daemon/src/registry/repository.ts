import { inTransaction } from '../store/transaction';
import { UpstreamRecords } from './upstream-records';
import { sql, type Insertable, type Kysely, type Transaction } from 'kysely';
import { nameKey } from '../contract/names';
import type { Database } from '../store/schema';
import type {
  BoxProvidersTable,
  BoxVersionsTable,
  BoxRecord,
  BoxRow,
  ProviderRow,
  VersionDetail,
  VersionRow,
  VersionSet,
} from './tables';

export type { BoxRecord, BoxRow, ProviderRow, VersionDetail, VersionRow, VersionSet };
import { boxes, type Db } from './box-query';
import { SearchQueries, type SearchFilter } from './search/query';
import { textIndexOf, type TextIndex } from './search/text';
import { hotQueries } from './search/hot-queries';
import type { TableClock } from '../store/cache/table-clock';
import { blobReferrer, type BlobReferrer } from '../blobs/holds';

/**
 * Runs a query per slice of a long id list, in order: a namespace of thousands of boxes must not
 * exceed the bound-parameter limits of SQLite (32,766) or PostgreSQL (65,535).
 */
async function inChunks<T>(ids: string[], query: (chunk: string[]) => Promise<T[]>, size = 1000): Promise<T[]> {
  if (ids.length <= size) return ids.length === 0 ? [] : query(ids);
  const out: T[] = [];
  for (let i = 0; i < ids.length; i += size) out.push(...(await query(ids.slice(i, i + size))));
  return out;
}

/** The only SQL for boxes, versions and providers. */
export class RegistryRepository {
  /** What every catalog, box and download request reads: built once (store/cache/prepared.ts). */
  private readonly hot;
  private readonly searches: SearchQueries;
  /** What mirrors last took from their upstreams for boxes and versions. */
  readonly records: UpstreamRecords;
  /** Providers hold their files' blobs: garbage collection keeps them. */
  readonly referencedBlobDigests: BlobReferrer['referencedBlobDigests'];
  readonly referencesBlob: BlobReferrer['referencesBlob'];

  constructor(
    private readonly db: Kysely<Database>,
    versions: TableClock,
    opts: {
      /** What narrows search text queries; by default the database's own (search/text.ts). */
      textIndex?: TextIndex;
    } = {},
  ) {
    this.records = new UpstreamRecords(db);
    this.hot = hotQueries(db, versions);
    this.searches = new SearchQueries(db, versions, opts.textIndex ?? textIndexOf(db));
    const held = blobReferrer(db, (d) => d.selectFrom('box_providers').select('blob_sha256 as sha256'));
    this.referencedBlobDigests = held.referencedBlobDigests;
    this.referencesBlob = held.referencesBlob;
  }

  transaction<T>(fn: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
    return inTransaction(this.db, fn);
  }

  boxByName(ownerId: string, name: string, db: Db = this.db): Promise<BoxRecord | undefined> {
    return boxes(db)
      .where((eb) => eb.or([eb('boxes.user_id', '=', ownerId), eb('boxes.organization_id', '=', ownerId)]))
      .where('boxes.name_key', '=', nameKey(name))
      .executeTakeFirst();
  }
  /**
   * A box by its owner's name and its own, in one query: the lookup of every catalog, box and
   * download request. User and organization names never collide, so at most one owner matches.
   */
  boxByPath(owner: string, name: string): Promise<BoxRecord | undefined> {
    return this.hot.boxByPath.get(nameKey(owner), nameKey(name));
  }
  boxById(id: string): Promise<BoxRecord | undefined> {
    return boxes(this.db).where('boxes.id', '=', id).executeTakeFirst();
  }
  boxesOf(ownerId: string, includePrivate: boolean): Promise<BoxRecord[]> {
    let q = boxes(this.db).where((eb) =>
      eb.or([eb('boxes.user_id', '=', ownerId), eb('boxes.organization_id', '=', ownerId)]),
    );
    if (!includePrivate) q = q.where('boxes.private', '=', 0);
    return q.orderBy('boxes.name_key').execute();
  }
  search(filter: SearchFilter): Promise<readonly BoxRecord[]> {
    return this.searches.run(filter);
  }
  async insertBox(row: Omit<BoxRow, 'downloads'>, db: Db = this.db) {
    await db.insertInto('boxes').values(row).execute();
  }
  async updateBox(id: string, patch: Partial<Omit<BoxRow, 'id' | 'user_id' | 'organization_id'>>, db: Db = this.db) {
    await db.updateTable('boxes').set(patch).where('id', '=', id).execute();
  }
  async deleteBox(id: string) {
    await this.db.deleteFrom('boxes').where('id', '=', id).execute();
  }
  /** One finished download: the box's count, and the provider's when known (the box page shows both). */
  async countDownload(boxId: string, providerId?: string) {
    await this.db
      .updateTable('boxes')
      .set((eb) => ({ downloads: eb('downloads', '+', 1) }))
      .where('id', '=', boxId)
      .execute();
    if (providerId === undefined) return;
    await this.db
      .insertInto('provider_downloads')
      .values({ provider_id: providerId, downloads: 1 })
      .onConflict((oc) =>
        oc.column('provider_id').doUpdateSet((eb) => ({ downloads: eb('provider_downloads.downloads', '+', 1) })),
      )
      .execute();
  }
  /** Finished downloads per provider id; providers never downloaded are absent. */
  async providerDownloads(providerIds: string[]): Promise<Map<string, number>> {
    const rows = await inChunks(providerIds, (ids) =>
      this.db
        .selectFrom('provider_downloads')
        .select(['provider_id', 'downloads'])
        .where('provider_id', 'in', ids)
        .execute(),
    );
    return new Map(rows.map((r) => [r.provider_id, r.downloads]));
  }

  /**
   * Versions of one box, newest (by Ruby Gem ordering) first, with their providers (by name), in
   * one query. Each set is its own read cache: its frozen arrays are never another set's, so an
   * answer kept beside them (http/answer-memo.ts) is never served to a caller who sees another set.
   */
  versionsOfBox(boxId: string, set: VersionSet): Promise<readonly VersionDetail[]> {
    return this.hot.versionsOfBox[set].get(boxId);
  }
  /** The released version vagrant would pick of each box (the highest active one), if any. */
  currentVersions(boxIds: readonly string[]): Promise<Array<VersionDetail | undefined>> {
    return this.hot.currentVersions(boxIds);
  }
  version(boxId: string, version: string, db: Db = this.db): Promise<VersionRow | undefined> {
    return db
      .selectFrom('box_versions')
      .selectAll()
      .where('box_id', '=', boxId)
      .where('version', '=', version)
      .executeTakeFirst();
  }
  versionById(id: string): Promise<VersionRow | undefined> {
    return this.db.selectFrom('box_versions').selectAll().where('id', '=', id).executeTakeFirst();
  }
  async insertVersion(row: Insertable<BoxVersionsTable>, db: Db = this.db) {
    await db.insertInto('box_versions').values(row).execute();
  }
  async updateVersion(id: string, patch: Partial<Omit<VersionRow, 'id' | 'box_id'>>, db: Db = this.db) {
    await db.updateTable('box_versions').set(patch).where('id', '=', id).execute();
  }
  /** Moves a version between states only from the expected state: two racing releases cannot both win. */
  async transitionVersion(
    id: string,
    from: VersionRow['status'],
    to: VersionRow['status'],
    now: string,
  ): Promise<boolean> {
    const r = await this.db
      .updateTable('box_versions')
      .set({ status: to, updated_at: now })
      .where('id', '=', id)
      .where('status', '=', from)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }
  async deleteVersion(id: string, db: Db = this.db) {
    await db.deleteFrom('box_versions').where('id', '=', id).execute();
  }
  /** Versions of a box that a mirror published. */
  mirroredVersions(boxId: string, mirrorId: string, db: Db = this.db): Promise<VersionRow[]> {
    return db
      .selectFrom('box_versions')
      .selectAll()
      .where('box_id', '=', boxId)
      .where('mirror_id', '=', mirrorId)
      .execute();
  }

  providersOf(versionIds: string[], db: Db = this.db): Promise<ProviderRow[]> {
    if (db === this.db) return this.hot.providersOfVersions.all(versionIds);
    return inChunks(versionIds, (ids) =>
      db
        .selectFrom('box_providers')
        .selectAll()
        .where('version_id', 'in', ids)
        .orderBy('name')
        .orderBy('created_at')
        .orderBy('id')
        .execute(),
    );
  }
  providerById(id: string, db: Db = this.db): Promise<ProviderRow | undefined> {
    return db.selectFrom('box_providers').selectAll().where('id', '=', id).executeTakeFirst();
  }
  /** The entry of that name and architecture, or the default-architecture entry when `architecture` is undefined. */
  provider(
    versionId: string,
    name: string,
    architecture: string | undefined,
    db: Db = this.db,
  ): Promise<ProviderRow | undefined> {
    let q = db.selectFrom('box_providers').selectAll().where('version_id', '=', versionId).where('name', '=', name);
    q =
      architecture === undefined ? q.where('default_architecture', '=', 1) : q.where('architecture', '=', architecture);
    return q.executeTakeFirst();
  }
  async insertProvider(row: Insertable<BoxProvidersTable>, db: Db = this.db) {
    await db.insertInto('box_providers').values(row).execute();
  }
  async updateProvider(id: string, patch: Partial<Omit<ProviderRow, 'id' | 'version_id'>>, db: Db = this.db) {
    await db.updateTable('box_providers').set(patch).where('id', '=', id).execute();
  }
  async deleteProvider(id: string, db: Db = this.db) {
    await db.deleteFrom('box_providers').where('id', '=', id).execute();
  }
  /** Makes `id` the only default-architecture entry of its name within its version. */
  async makeDefault(p: Pick<ProviderRow, 'id' | 'version_id' | 'name'>, db: Db = this.db) {
    await db
      .updateTable('box_providers')
      .set({ default_architecture: sql<number>`(case when id = ${p.id} then 1 else 0 end)` })
      .where('version_id', '=', p.version_id)
      .where('name', '=', p.name)
      .execute();
  }
  /** Keeps exactly one default per name: promotes the oldest entry (other than `avoid`) when none is left. */
  async ensureDefault(versionId: string, name: string, avoid: string | null, db: Db = this.db) {
    const rows = await db
      .selectFrom('box_providers')
      .select(['id', 'default_architecture'])
      .where('version_id', '=', versionId)
      .where('name', '=', name)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    if (rows.length === 0 || rows.some((r) => r.default_architecture === 1)) return;
    const pick = rows.find((r) => r.id !== avoid) ?? rows[0];
    await this.makeDefault({ id: pick.id, version_id: versionId, name }, db);
  }
}
