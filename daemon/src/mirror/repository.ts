import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { Database } from '../store/schema';
import { inTransaction } from '../store/transaction';
import { prepare } from '../store/cache/prepared';
import { cachedQuery, type ReadCache } from '../store/cache/read-cache';
import type { TableClock } from '../store/cache/table-clock';
import { ACTIVE_JOB_STATES as ACTIVE, type JobState } from '../contract/wire/mirror';
import type { CachedBoxesTable, MirrorFilesTable, MirrorJobsTable, MirrorsTable, UpstreamsTable } from './tables';

/** An upstream with its owner as they are now: null for the daemon's own, or a user since deleted. */
export type UpstreamRow = Selectable<UpstreamsTable> & { owner_admin: number | null; owner_name: string | null };
export type MirrorRow = Selectable<MirrorsTable>;
export type JobRow = Selectable<MirrorJobsTable>;
export type FileRow = Selectable<MirrorFilesTable>;
export type CachedBoxRow = Selectable<CachedBoxesTable>;

/** The only SQL of upstreams, mirrors, mirror jobs, their files and the cache's boxes. */
export class MirrorRepository {
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

  // ---- upstreams ----
  /**
   * Upstreams with what their owner is now: whether an administrator (rights are read when they
   * are used: outbound.ts's reachFor), and the owner's name (the API says whose an upstream is).
   */
  private upstreamRows() {
    return this.db
      .selectFrom('upstreams')
      .leftJoin('users as owner', 'owner.id', 'upstreams.created_by')
      .selectAll('upstreams')
      .select(['owner.is_admin as owner_admin', 'owner.username as owner_name']);
  }
  upstream(id: string): Promise<UpstreamRow | undefined> {
    return this.upstreamRows().where('upstreams.id', '=', id).executeTakeFirst();
  }
  /** Every upstream (`null`), or those `createdBy` made. */
  upstreams(createdBy: string | null): Promise<UpstreamRow[]> {
    let q = this.upstreamRows();
    if (createdBy) q = q.where('upstreams.created_by', '=', createdBy);
    return q.orderBy('upstreams.name_key').execute();
  }
  /** The daemon's own upstream (`--upstream`): the one no user made. */
  systemUpstream(): Promise<UpstreamRow | undefined> {
    return this.upstreamRows()
      .where('upstreams.created_by', 'is', null)
      .where('upstreams.name_key', 'like', 'pull-through%')
      .orderBy('upstreams.created_at')
      .executeTakeFirst();
  }
  /** `owner`'s upstream of this name (names are unique per owner; null: the daemon's own). */
  upstreamNamed(owner: string | null, nameKey: string): Promise<UpstreamRow | undefined> {
    return this.upstreamRows()
      .where('upstreams.name_key', '=', nameKey)
      .where('upstreams.created_by', owner === null ? 'is' : '=', owner)
      .executeTakeFirst();
  }
  async insertUpstream(row: Insertable<UpstreamsTable>) {
    await this.db.insertInto('upstreams').values(row).execute();
  }
  async updateUpstream(id: string, patch: Updateable<UpstreamsTable>) {
    await this.db.updateTable('upstreams').set(patch).where('id', '=', id).execute();
  }
  async deleteUpstream(id: string) {
    await this.db.deleteFrom('upstreams').where('id', '=', id).execute();
  }

  // ---- mirrors ----
  mirror(id: string): Promise<MirrorRow | undefined> {
    return this.db.selectFrom('mirrors').selectAll().where('id', '=', id).executeTakeFirst();
  }
  mirrors(): Promise<MirrorRow[]> {
    return this.db.selectFrom('mirrors').selectAll().orderBy('created_at').orderBy('id').execute();
  }
  async insertMirror(row: Insertable<MirrorsTable>) {
    await this.db.insertInto('mirrors').values(row).execute();
  }
  async updateMirror(id: string, patch: Updateable<MirrorsTable>) {
    await this.db.updateTable('mirrors').set(patch).where('id', '=', id).execute();
  }
  async deleteMirror(id: string) {
    await this.db.deleteFrom('mirrors').where('id', '=', id).execute();
  }
  /** Scheduled mirrors due at `now`, not paused, that have no queued or running job. */
  dueMirrors(now: string): Promise<MirrorRow[]> {
    return this.db
      .selectFrom('mirrors')
      .selectAll()
      .where('interval_minutes', 'is not', null)
      .where('next_run_at', '<=', now)
      .where('paused', 'is', null)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('mirror_jobs')
              .select('id')
              .whereRef('mirror_jobs.mirror_id', '=', 'mirrors.id')
              .where('state', 'in', ACTIVE),
          ),
        ),
      )
      .execute();
  }

  // ---- jobs ----
  job(id: string): Promise<JobRow | undefined> {
    return this.db.selectFrom('mirror_jobs').selectAll().where('id', '=', id).executeTakeFirst();
  }
  jobsOf(mirrorId: string, limit = 50): Promise<JobRow[]> {
    return this.db
      .selectFrom('mirror_jobs')
      .selectAll()
      .where('mirror_id', '=', mirrorId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }
  lastJobs(mirrorIds: string[]): Promise<JobRow[]> {
    if (mirrorIds.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom('mirror_jobs')
      .selectAll()
      .where('mirror_id', 'in', mirrorIds)
      .where(({ eb, selectFrom }) =>
        eb(
          'id',
          '=',
          selectFrom('mirror_jobs as j')
            .select('j.id')
            .whereRef('j.mirror_id', '=', 'mirror_jobs.mirror_id')
            .orderBy('j.created_at', 'desc')
            .orderBy('j.id', 'desc')
            .limit(1),
        ),
      )
      .execute();
  }
  activeJobOf(mirrorId: string): Promise<JobRow | undefined> {
    return this.db
      .selectFrom('mirror_jobs')
      .selectAll()
      .where('mirror_id', '=', mirrorId)
      .where('state', 'in', ACTIVE)
      .executeTakeFirst();
  }
  queuedJobs(): Promise<JobRow[]> {
    return this.db
      .selectFrom('mirror_jobs')
      .selectAll()
      .where('state', '=', 'queued')
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  }
  /** Cancels a queued or running job that has not begun publishing; false otherwise. */
  async cancelJob(id: string, now: string): Promise<boolean> {
    const r = await this.db
      .updateTable('mirror_jobs')
      .set({ state: 'cancelled', message: 'Cancelled.', finished_at: now, updated_at: now })
      .where('id', '=', id)
      .where('state', 'in', ACTIVE)
      .where('publishing_at', 'is', null)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }
  /**
   * Marks a job `runner` runs as publishing (it can no longer be cancelled); false when it was cancelled or taken
   * first.
   */
  async startPublishing(id: string, runner: string, now: string): Promise<boolean> {
    const r = await this.db
      .updateTable('mirror_jobs')
      .set({ publishing_at: now, message: 'Publishing.', updated_at: now })
      .where('id', '=', id)
      .where('state', '=', 'running')
      .where('runner', '=', runner)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }
  /** Queued and running jobs of the mirrors reading from an upstream. */
  activeJobsOfUpstream(upstreamId: string): Promise<JobRow[]> {
    return this.db
      .selectFrom('mirror_jobs')
      .innerJoin('mirrors', 'mirrors.id', 'mirror_jobs.mirror_id')
      .selectAll('mirror_jobs')
      .where('mirrors.upstream_id', '=', upstreamId)
      .where('mirror_jobs.state', 'in', ACTIVE)
      .execute();
  }
  async insertJob(row: Insertable<MirrorJobsTable>) {
    await this.db.insertInto('mirror_jobs').values(row).execute();
  }
  async updateJob(id: string, patch: Updateable<MirrorJobsTable>) {
    await this.db.updateTable('mirror_jobs').set(patch).where('id', '=', id).execute();
  }
  /** A file's size learnt while it downloads joins the job's total (several downloads may learn theirs at once). */
  async addToTotal(id: string, bytes: number) {
    await this.db
      .updateTable('mirror_jobs')
      .set((eb) => ({ bytes_total: eb('bytes_total', '+', bytes) }))
      .where('id', '=', id)
      .execute();
  }
  /**
   * Moves a job between states only from the expected ones (a cancel and a finish cannot both
   * win), and with `runner`, only while that runner still has it.
   */
  async transitionJob(
    id: string,
    from: JobState[],
    patch: Updateable<MirrorJobsTable> & { state: JobState },
    runner?: string,
  ): Promise<boolean> {
    let q = this.db.updateTable('mirror_jobs').set(patch).where('id', '=', id).where('state', 'in', from);
    if (runner !== undefined) q = q.where('runner', '=', runner);
    return Number((await q.executeTakeFirst()).numUpdatedRows) === 1;
  }
  /**
   * Jobs that were running in an earlier process, or in a daemon that stopped leading: queued
   * again, to resume (when a daemon starts leading; a runner that lost the lead finds its job
   * taken and stops, mirror/jobs/runner.ts).
   */
  async requeueRunning(now: string): Promise<number> {
    const r = await this.db
      .updateTable('mirror_jobs')
      .set({
        state: 'queued',
        runner: null,
        message: 'Resuming after a restart.',
        publishing_at: null,
        updated_at: now,
      })
      .where('state', '=', 'running')
      .executeTakeFirst();
    return Number(r.numUpdatedRows);
  }

  // ---- files ----
  filesOf(jobId: string): Promise<FileRow[]> {
    return this.db.selectFrom('mirror_files').selectAll().where('job_id', '=', jobId).orderBy('id').execute();
  }
  /** A job's plan and files, recorded together while `runner` still has the job; false when it lost it. */
  async savePlan(
    jobId: string,
    runner: string,
    patch: Updateable<MirrorJobsTable>,
    files: Insertable<MirrorFilesTable>[],
  ): Promise<boolean> {
    return inTransaction(this.db, async (trx) => {
      const r = await trx
        .updateTable('mirror_jobs')
        .set(patch)
        .where('id', '=', jobId)
        .where('state', '=', 'running')
        .where('runner', '=', runner)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) !== 1) return false;
      if (files.length) await trx.insertInto('mirror_files').values(files).execute();
      return true;
    });
  }
  async updateFile(id: string, patch: Updateable<MirrorFilesTable>) {
    await this.db.updateTable('mirror_files').set(patch).where('id', '=', id).execute();
  }
  /** Staging folders of the files of unfinished jobs: garbage collection keeps them. */
  async retainedStaging(): Promise<Set<string>> {
    const rows = await this.activeFiles(this.db).select('mirror_files.id').execute();
    return new Set(rows.map((r) => r.id));
  }
  /** Blobs that unfinished jobs fetched and will publish: garbage collection keeps them. */
  async referencedBlobDigests(): Promise<Set<string>> {
    const rows = await this.activeFiles(this.db)
      .select('mirror_files.blob_sha256')
      .where('mirror_files.blob_sha256', 'is not', null)
      .execute();
    return new Set(rows.map((r) => r.blob_sha256!));
  }
  async referencesBlob(sha256: string, db: Kysely<Database> = this.db): Promise<boolean> {
    return (
      (await this.activeFiles(db)
        .select('mirror_files.id')
        .where('mirror_files.blob_sha256', '=', sha256)
        .executeTakeFirst()) !== undefined
    );
  }
  private activeFiles(db: Kysely<Database>) {
    return db
      .selectFrom('mirror_files')
      .innerJoin('mirror_jobs', 'mirror_jobs.id', 'mirror_files.job_id')
      .where('mirror_jobs.state', 'in', ACTIVE);
  }

  // ---- the pull-through cache's boxes ----
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
