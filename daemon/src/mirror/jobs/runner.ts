import pLimit, { type LimitFunction } from 'p-limit';
import { AppError, OfflineError } from '../../lib/errors';
import type { JobRow, MirrorRow } from '../repository';
import { isRemote } from '../upstreams/source';
import { JobRun, type RunnerDeps } from './job-run';
import { nextRunAt } from '../mirror-row';
import { present } from '../../lib/invariant';

export type { RunnerDeps } from './job-run';

const WAITING_OFFLINE = 'Waiting: Boxyard is offline. The job starts when offline mode is switched off.';
/** Jobs run at once; their downloads share the daemon's `downloads` slots. */
const JOBS_AT_ONCE = 4;

/**
 * Mirror jobs are rows, not promises (Pulp's tasks): up to JOBS_AT_ONCE run at a time, in
 * creation order, their downloads bounded together by the daemon's `downloads` (each job also by
 * its mirror's `parallel`); a restart queues a running job again and it resumes from its plan and
 * staged bytes. Scheduled mirrors are queued when due. While offline, jobs on network upstreams wait.
 */
export class MirrorRunner {
  private readonly runs = new Map<string, { run: JobRun; done: Promise<void> }>();
  private ticking: Promise<void> | null = null;
  private stopping = false;
  /** Jobs run only where start() was called: in the daemon that leads (store/leader.ts). */
  private started = false;
  /**
   * Recorded on the jobs this process runs. A daemon that has just lost the lead does not know it
   * yet: it finds the job taken (queued again by the new leader) at its next write, and stops.
   */
  private readonly self: string;
  private readonly downloads: LimitFunction;

  constructor(
    private readonly deps: RunnerDeps,
    downloads = 8,
  ) {
    this.self = deps.ids.id('runner');
    this.downloads = pLimit(downloads);
  }

  private now = () => this.deps.clock.now().toISOString();

  /** Queues a run of the mirror (the caller checked none is active); a schedule counts from now. */
  async enqueue(mirror: MirrorRow): Promise<JobRow> {
    const id = this.deps.ids.id('job');
    const now = this.now();
    if (mirror.interval_minutes)
      await this.deps.repo.updateMirror(mirror.id, {
        next_run_at: nextRunAt(mirror.interval_minutes, this.deps.clock.now()),
      });
    await this.deps.repo.insertJob({
      id,
      mirror_id: mirror.id,
      state: 'queued',
      plan: null,
      message: null,
      error_code: null,
      created_at: now,
      started_at: null,
      finished_at: null,
      updated_at: now,
    });
    this.wake();
    return present(
      await this.deps.repo.job(id),
      `Mirror job ${id} is there when read back just after it was written or found`,
    );
  }

  /** Cancels a queued or running job; false when it had already finished or is publishing. */
  async cancel(jobId: string): Promise<boolean> {
    const ok = await this.deps.repo.cancelJob(jobId, this.now());
    const here = this.runs.get(jobId);
    if (ok && here) {
      here.run.abort.abort();
      // Its downloads stop first, or one might write into a staging folder being removed.
      await here.done;
    }
    if (ok) await this.discardStaging(jobId);
    return ok;
  }

  /** Bytes per second since this process started the job, and seconds left; null when not running here. */
  speed(job: JobRow): { rate: number | null; eta: number | null } {
    return this.runs.get(job.id)?.run.speed(job) ?? { rate: null, eta: null };
  }

  /** Resumes jobs of an earlier process, then checks for work every `intervalMs`. */
  async start(intervalMs = 1000): Promise<() => Promise<void>> {
    await this.deps.repo.requeueRunning(this.now());
    const timer = setInterval(() => this.wake(), intervalMs);
    timer.unref();
    this.started = true;
    this.stopping = false;
    this.wake();
    return async () => {
      clearInterval(timer);
      this.started = false;
      this.stopping = true;
      for (const { run } of this.runs.values()) run.abort.abort();
      await this.ticking?.catch(() => undefined);
      // A tick under way when this began may have started a job meanwhile.
      for (const { run } of this.runs.values()) run.abort.abort();
      await Promise.all([...this.runs.values()].map((r) => r.done));
    };
  }

  /** Looks for work now (one look at a time); elsewhere the leader's next look finds it. */
  wake(): void {
    if (!this.started) return;
    this.ticking ??= this.tick()
      .catch((err: unknown) => this.deps.log.error({ err }, 'mirror runner tick failed'))
      .finally(() => {
        this.ticking = null;
      });
  }

  private async tick(): Promise<void> {
    for (const m of await this.deps.repo.dueMirrors(this.now())) await this.enqueue(m);
    while (this.runs.size < JOBS_AT_ONCE && this.started && !this.stopping) {
      const job = await this.nextRunnable();
      if (!job) return;
      const running = await this.deps.repo.transitionJob(job.id, ['queued'], {
        state: 'running',
        runner: this.self,
        message: 'Reading the upstream catalog.',
        started_at: job.started_at ?? this.now(),
        updated_at: this.now(),
      });
      if (!running) continue;
      const run = new JobRun(job, this.deps, this.self, this.downloads);
      const done = this.run(run).catch((err: unknown) =>
        this.deps.log.error({ err, job: job.id }, 'mirror job could not be settled'),
      );
      this.runs.set(job.id, { run, done });
    }
  }

  /** The oldest queued job that may run now: while offline, jobs on network upstreams wait. */
  private async nextRunnable(): Promise<JobRow | undefined> {
    const offline = await this.deps.gate.isOffline();
    for (const queued of await this.deps.repo.queuedJobs()) {
      if (!offline) return queued;
      const mirror = await this.deps.repo.mirror(queued.mirror_id);
      const upstream = mirror && (await this.deps.upstreamRepo.upstream(mirror.upstream_id));
      if (upstream && !isRemote(upstream)) return queued;
      if (queued.message !== WAITING_OFFLINE)
        await this.deps.repo.updateJob(queued.id, { message: WAITING_OFFLINE, updated_at: this.now() });
    }
    return undefined;
  }

  private async run(run: JobRun): Promise<void> {
    try {
      await run.execute();
    } catch (err) {
      await this.settleFailure(run.job, err);
    } finally {
      this.runs.delete(run.job.id);
      if (!this.stopping) setImmediate(() => this.wake());
    }
  }

  /**
   * Offline mid-job: back to the queue; cancelled, or taken over by the daemon that leads now:
   * theirs to settle (its staging is left alone); anything else fails the job.
   */
  private async settleFailure(job: JobRow, err: unknown): Promise<void> {
    const now = this.now();
    const current = await this.deps.repo.job(job.id);
    if (current?.state !== 'running' || current.runner !== this.self) return;
    if (err instanceof OfflineError || this.stopping) {
      // The daemon is stopping: the job resumes, with its staged bytes, when it starts again.
      const message = this.stopping ? 'Resuming when the daemon starts again.' : WAITING_OFFLINE;
      await this.deps.repo.transitionJob(
        job.id,
        ['running'],
        { state: 'queued', runner: null, message, updated_at: now },
        this.self,
      );
      return;
    }
    const known = err instanceof AppError;
    if (!known) this.deps.log.error({ err, job: job.id }, 'mirror job failed');
    const message = known ? err.message : `Internal error: ${(err as Error)?.message ?? String(err)}`;
    // Staging goes only once the failure is recorded as this runner's: a new owner resumes from it.
    if (
      await this.deps.repo.transitionJob(
        job.id,
        ['running'],
        { state: 'failed', message, error_code: known ? err.code : 'internal', finished_at: now, updated_at: now },
        this.self,
      )
    ) {
      await this.discardStaging(job.id);
      if (known && err.code === 'upstream_failed') await this.noteOnUpstream(job, message);
    }
  }

  /** A job that failed on its network upstream shows on that upstream's health until something succeeds there. */
  private async noteOnUpstream(job: JobRow, message: string): Promise<void> {
    const mirror = await this.deps.repo.mirror(job.mirror_id);
    const upstream = mirror && (await this.deps.upstreamRepo.upstream(mirror.upstream_id));
    if (upstream && isRemote(upstream)) await this.deps.gate.noted(upstream, message);
  }

  private async discardStaging(jobId: string): Promise<void> {
    for (const f of await this.deps.repo.filesOf(jobId)) await this.deps.blobs.discard(f.id);
  }
}
