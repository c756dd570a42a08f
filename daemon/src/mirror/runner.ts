import type { Logger } from 'pino';
import type { OrgService } from '../orgs/service';
import type { BlobStore } from '../blobs/blob-store';
import type { BlobHolds } from '../blobs/holds';
import type { Clock } from '../lib/clock';
import type { IdGen } from '../lib/ids';
import { AppError, NotFoundError, OfflineError } from '../lib/errors';
import type { PublishService } from '../registry/versions/publish-service';
import { fetchFile } from './upstreams/fetch-file';
import { buildJobPlan, type JobPlan } from './job-plan';
import type { FileRow, JobRow, MirrorRepository, MirrorRow } from './repository';
import { isRemote, sourceFor, type UpstreamSource } from './upstreams/source';
import { TransientUpstreamError, type UpstreamGate } from './upstreams/http';
import { setTimeout as sleep } from 'node:timers/promises';
import { publishPlan } from './publish-plan';

export interface RunnerDeps {
  repo: MirrorRepository;
  gate: UpstreamGate;
  blobs: BlobStore;
  holds: BlobHolds;
  publisher: PublishService;
  orgs: OrgService;
  clock: Clock;
  ids: IdGen;
  log: Logger;
}

/** Attempts per file, the pause growing by RETRY_DELAY_MS each time. */
const RETRIES = 3;
const RETRY_DELAY_MS = 1000;
const WAITING_OFFLINE = 'Waiting: Boxyard is offline. The job starts when offline mode is switched off.';
/** Progress is written to the database at most this often (and when a file completes). */
const PROGRESS_EVERY_MS = 250;

/**
 * Mirror jobs are rows, not promises (Pulp's tasks): one runs at a time, in creation order; a
 * restart queues a running job again and it resumes from its plan and staged bytes. Scheduled
 * mirrors are queued when due. While offline, jobs on network upstreams wait.
 */
export class MirrorRunner {
  private current: { jobId: string; abort: AbortController; startedAt: number; startBytes: number; bytes: number } | null = null;
  private ticking: Promise<void> | null = null;
  private running: Promise<void> | null = null;
  private stopping = false;
  /** Jobs run only where start() was called: in the daemon that leads (store/leader.ts). */
  private started = false;
  /**
   * Recorded on the jobs this process runs. A daemon that has just lost the lead does not know it
   * yet: it finds the job taken (queued again by the new leader) at its next write, and stops.
   */
  private readonly self: string;

  constructor(private readonly d: RunnerDeps) {
    this.self = d.ids.id('runner');
  }

  private now = () => this.d.clock.now().toISOString();

  /** Queues a run of the mirror (the caller checked none is active); a schedule counts from now. */
  async enqueue(mirror: MirrorRow): Promise<JobRow> {
    const id = this.d.ids.id('job');
    const now = this.now();
    if (mirror.interval_minutes) {
      await this.d.repo.updateMirror(mirror.id, { next_run_at: new Date(this.d.clock.now().getTime() + mirror.interval_minutes * 60_000).toISOString() });
    }
    await this.d.repo.insertJob({ id, mirror_id: mirror.id, state: 'queued', plan: null, message: null, error_code: null, created_at: now, started_at: null, finished_at: null, updated_at: now });
    this.wake();
    return (await this.d.repo.job(id))!;
  }

  /** Cancels a queued or running job; false when it had already finished or is publishing. */
  async cancel(jobId: string): Promise<boolean> {
    const ok = await this.d.repo.cancelJob(jobId, this.now());
    if (ok && this.current?.jobId === jobId) this.current.abort.abort();
    if (ok) await this.discardStaging(jobId);
    return ok;
  }

  /** Bytes per second since this process started the job, and seconds left; null when not running here. */
  speed(job: JobRow): { rate: number | null; eta: number | null } {
    const c = this.current;
    if (!c || c.jobId !== job.id) return { rate: null, eta: null };
    const seconds = (Date.now() - c.startedAt) / 1000;
    const rate = seconds > 0.5 ? Math.round((c.bytes - c.startBytes) / seconds) : null;
    const left = job.bytes_total - job.bytes_done;
    return { rate, eta: rate && left >= 0 ? Math.round(left / rate) : null };
  }

  /** Resumes jobs of an earlier process, then checks for work every `intervalMs`. */
  async start(intervalMs = 1000): Promise<() => Promise<void>> {
    await this.d.repo.requeueRunning(this.now());
    const timer = setInterval(() => this.wake(), intervalMs);
    timer.unref();
    this.started = true;
    this.stopping = false;
    this.wake();
    return async () => {
      clearInterval(timer);
      this.started = false;
      this.stopping = true;
      this.current?.abort.abort();
      await this.ticking?.catch(() => undefined);
      // A tick under way when this began may have started a job meanwhile.
      this.current?.abort.abort();
      await this.running;
    };
  }

  /** Looks for work now (one look at a time); elsewhere the leader's next look finds it. */
  wake(): void {
    if (!this.started) return;
    this.ticking ??= this.tick().catch((err: unknown) => this.d.log.error({ err }, 'mirror runner tick failed')).finally(() => { this.ticking = null; });
  }

  private async tick(): Promise<void> {
    for (const m of await this.d.repo.dueMirrors(this.now())) await this.enqueue(m);
    if (this.current) return;
    const job = await this.nextRunnable();
    if (!job) return;
    this.running = this.run(job).catch((err: unknown) => this.d.log.error({ err, job: job.id }, 'mirror job could not be settled'));
  }

  /** The oldest queued job that may run now: while offline, jobs on network upstreams wait. */
  private async nextRunnable(): Promise<JobRow | undefined> {
    const offline = await this.d.gate.isOffline();
    for (const queued of await this.d.repo.queuedJobs()) {
      if (!offline) return queued;
      const mirror = await this.d.repo.mirror(queued.mirror_id);
      const upstream = mirror && (await this.d.repo.upstream(mirror.upstream_id));
      if (upstream && !isRemote(upstream)) return queued;
      if (queued.message !== WAITING_OFFLINE) await this.d.repo.updateJob(queued.id, { message: WAITING_OFFLINE, updated_at: this.now() });
    }
    return undefined;
  }

  private async run(job: JobRow): Promise<void> {
    if (!this.started || this.stopping) return;
    const abort = new AbortController();
    this.current = { jobId: job.id, abort, startedAt: Date.now(), startBytes: job.bytes_done, bytes: job.bytes_done };
    try {
      if (!(await this.d.repo.transitionJob(job.id, ['queued'], { state: 'running', runner: this.self, message: 'Reading the upstream catalog.', started_at: job.started_at ?? this.now(), updated_at: this.now() }))) return;
      await this.execute(job, abort.signal);
    } catch (err) {
      await this.settleFailure(job, err);
    } finally {
      this.current = null;
      if (!this.stopping) setImmediate(() => this.wake());
    }
  }

  private async execute(job: JobRow, signal: AbortSignal): Promise<void> {
    const mirror = await this.d.repo.mirror(job.mirror_id);
    const upstream = mirror && (await this.d.repo.upstream(mirror.upstream_id));
    if (!mirror || !upstream) throw new NotFoundError('The mirror or its upstream was deleted.');
    const source = sourceFor(upstream, this.d.gate);
    let plan: JobPlan = job.plan ? JSON.parse(job.plan) as JobPlan : await this.plan(job, mirror, source, signal);
    const files = await this.d.repo.filesOf(job.id);
    // Progress restarts from what is stored: finished files now, staged bytes as each resumes.
    const stored = files.reduce((sum, f) => sum + (f.state === 'done' ? f.blob_size ?? 0 : 0), 0);
    if (this.current) Object.assign(this.current, { bytes: stored, startBytes: stored });
    const done = new Map<string, { sha256: string; size: number }>();
    for (const f of files) {
      if (f.state === 'done' && f.blob_sha256 !== null && f.blob_size !== null) done.set(f.id, { sha256: f.blob_sha256, size: f.blob_size });
      else done.set(f.id, await this.download(job.id, f, source, signal));
    }
    signal.throwIfAborted();
    // From here the job can no longer be cancelled: it publishes everything or nothing.
    if (!(await this.d.repo.startPublishing(job.id, this.self, this.now()))) throw new DOMException('cancelled', 'AbortError');
    // Under a hold: the job's files stop counting as references once it is no longer active.
    plan = await this.d.holds.keep([...done.values()].map((b) => b.sha256), () => publishPlan(plan, mirror, done, this.d, upstream.token !== null));
    const summary = plan.published?.length ? plan.published.map((p) => `${p.box} ${p.versions.join(', ') || '(nothing new)'}`).join('; ') : 'nothing new upstream';
    await this.d.repo.transitionJob(job.id, ['running'], {
      state: 'done', plan: JSON.stringify(plan), message: `Published ${summary}.`, finished_at: this.now(), updated_at: this.now(),
    }, this.self);
  }

  private async plan(job: JobRow, mirror: MirrorRow, source: UpstreamSource, signal: AbortSignal): Promise<JobPlan> {
    const { plan, files } = await buildJobPlan(mirror, job.id, {
      source, ids: this.d.ids, signal,
      localVersions: async (target) => {
        const [namespace, box] = target.split('/');
        const ns = await this.d.orgs.namespace(namespace);
        return ns ? this.d.publisher.versionNumbers(ns, box) : new Set();
      },
    });
    const known = files.reduce((sum, f) => sum + (f.size ?? 0), 0);
    const patch = { plan: JSON.stringify(plan), files_total: files.length, bytes_total: known, message: `Fetching ${files.length} file(s).`, updated_at: this.now() };
    if (!(await this.d.repo.savePlan(job.id, this.self, patch, files))) throw new DOMException('cancelled', 'AbortError');
    return plan;
  }

  private async download(jobId: string, f: FileRow, source: UpstreamSource, signal: AbortSignal): Promise<{ sha256: string; size: number }> {
    let fileBytes = 0;
    let last = 0;
    const flush = async () => {
      last = Date.now();
      const job = await this.d.repo.job(jobId);
      // Cancelled through another daemon, or taken over by a new leader: this download stops.
      if (!job || job.state !== 'running' || job.runner !== this.self) {
        if (this.current?.jobId === jobId) this.current.abort.abort();
        return;
      }
      await this.d.repo.updateJob(jobId, { bytes_done: this.current?.bytes ?? job.bytes_done, updated_at: this.now() });
      await this.d.repo.updateFile(f.id, { bytes_done: fileBytes });
    };
    const fetchOnce = () => fetchFile(f, source, this.d, {
      signal,
      // Recorded under the commit's hold: the job's file references the blob before garbage collection may look.
      settle: (blob) => this.d.repo.updateFile(f.id, { state: 'done', blob_sha256: blob.sha256, blob_size: blob.size, bytes_done: blob.size, size: blob.size }),
      onSize: (size) => void this.learnSize(jobId, f, size).catch((err: unknown) => this.d.log.warn({ err }, 'recording a file size failed')),
      onBytes: (n, kept) => {
        if (this.current) this.current.bytes += n;
        if (this.current && kept) this.current.startBytes += n;
        fileBytes += n;
        if (Date.now() - last > PROGRESS_EVERY_MS) void flush().catch(() => undefined);
      },
    });
    let blob: { sha256: string; size: number } | undefined;
    // A connection that breaks is asked again for the rest (Range), a few times, before the job fails.
    for (let attempt = 1; !blob; attempt++) {
      const before = fileBytes;
      try {
        blob = await fetchOnce();
      } catch (err) {
        if (!(err instanceof TransientUpstreamError) || attempt >= RETRIES) throw err;
        if (this.current) this.current.bytes -= fileBytes - before;
        fileBytes = before;
        this.d.log.warn({ err, job: jobId, url: f.url, attempt }, 'mirror download interrupted; resuming');
        await this.d.repo.updateJob(jobId, { message: `Resuming ${f.url} after: ${err.message}`, updated_at: this.now() });
        await sleep(RETRY_DELAY_MS * attempt, undefined, { signal });
      }
    }
    const job = (await this.d.repo.job(jobId))!;
    await this.d.repo.updateJob(jobId, { files_done: job.files_done + 1, bytes_done: this.current?.bytes ?? job.bytes_done, updated_at: this.now() });
    return blob;
  }

  /** A file whose size was unknown at planning adds it to the job's total once it is known. */
  private async learnSize(jobId: string, f: FileRow, size: number): Promise<void> {
    if (f.size !== null) return;
    f.size = size;
    await this.d.repo.updateFile(f.id, { size });
    const job = await this.d.repo.job(jobId);
    if (job) await this.d.repo.updateJob(jobId, { bytes_total: job.bytes_total + size });
  }

  /**
   * Offline mid-job: back to the queue; cancelled, or taken over by the daemon that leads now:
   * theirs to settle (its staging is left alone); anything else fails the job.
   */
  private async settleFailure(job: JobRow, err: unknown): Promise<void> {
    const now = this.now();
    const current = await this.d.repo.job(job.id);
    if (current?.state !== 'running' || current.runner !== this.self) return;
    if (err instanceof OfflineError || this.stopping) {
      // The daemon is stopping: the job resumes, with its staged bytes, when it starts again.
      const message = this.stopping ? 'Resuming when the daemon starts again.' : WAITING_OFFLINE;
      await this.d.repo.transitionJob(job.id, ['running'], { state: 'queued', runner: null, message, updated_at: now }, this.self);
      return;
    }
    const known = err instanceof AppError;
    if (!known) this.d.log.error({ err, job: job.id }, 'mirror job failed');
    const message = known ? err.message : `Internal error: ${(err as Error)?.message ?? String(err)}`;
    // Staging goes only once the failure is recorded as this runner's: a new owner resumes from it.
    if (await this.d.repo.transitionJob(job.id, ['running'], { state: 'failed', message, error_code: known ? err.code : 'internal', finished_at: now, updated_at: now }, this.self)) {
      await this.discardStaging(job.id);
    }
  }

  private async discardStaging(jobId: string): Promise<void> {
    for (const f of await this.d.repo.filesOf(jobId)) await this.d.blobs.discard(f.id);
  }
}
