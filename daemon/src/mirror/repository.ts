import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { Database } from '../store/schema';
import { inTransaction } from '../store/transaction';
import { blobReferrer, type BlobReferrer } from '../blobs/holds';
import { ACTIVE_JOB_STATES as ACTIVE, type JobState } from '../contract/wire/mirror';
import type { MirrorFilesTable, MirrorJobsTable, MirrorsTable } from './tables';

export type MirrorRow = Selectable<MirrorsTable>;
export type JobRow = Selectable<MirrorJobsTable>;
export type FileRow = Selectable<MirrorFilesTable>;

/**
 * The only SQL of mirrors, mirror jobs and their files (upstreams: upstreams/repository.ts; the
 * cache's boxes: cache/repository.ts).
 */
export class MirrorRepository implements BlobReferrer {
  /** Blobs that unfinished jobs fetched and will publish: garbage collection keeps them. */
  readonly referencedBlobDigests: BlobReferrer['referencedBlobDigests'];
  readonly referencesBlob: BlobReferrer['referencesBlob'];

  constructor(private readonly db: Kysely<Database>) {
    const held = blobReferrer(db, (d) => activeFiles(d).select('mirror_files.blob_sha256 as sha256'));
    this.referencedBlobDigests = held.referencedBlobDigests;
    this.referencesBlob = held.referencesBlob;
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
    const rows = await activeFiles(this.db).select('mirror_files.id').execute();
    return new Set(rows.map((r) => r.id));
  }
}

/** The files of unfinished jobs. */
function activeFiles(db: Kysely<Database>) {
  return db
    .selectFrom('mirror_files')
    .innerJoin('mirror_jobs', 'mirror_jobs.id', 'mirror_files.job_id')
    .where('mirror_jobs.state', 'in', ACTIVE);
}
