import pLimit, { type LimitFunction } from 'p-limit';
import type { Logger } from 'pino';
import type { OrgService } from '../../orgs/service';
import type { BlobStore } from '../../blobs/blob-store';
import type { BlobHolds } from '../../blobs/holds';
import type { DiskSpace } from '../../blobs/disk-space';
import { retrying, type Backoff } from '../../lib/backoff';
import type { Clock } from '../../lib/clock';
import type { IdGen } from '../../lib/ids';
import { ForbiddenError, NotFoundError } from '../../lib/errors';
import type { PublishService } from '../../registry/versions/publish-service';
import { fetchFile } from '../upstreams/fetch-file';
import { buildJobPlan, localVersionsOf, type JobPlan } from '../plans/job-plan';
import type { FileRow, JobRow, MirrorRepository, MirrorRow } from '../repository';
import type { UpstreamRepository, UpstreamRow } from '../upstreams/repository';
import { sourceFor, type UpstreamSource } from '../upstreams/source';
import { TransientUpstreamError, type UpstreamGate } from '../upstreams/http';
import { publishPlan } from './publish';
import { bytesToFetch, storageFit, unfit } from '../plans/disk-fit';
import type { Metrics } from '../../http/metrics';
import type { MirrorRights } from '../run-rights';

export interface RunnerDeps {
  repo: MirrorRepository;
  upstreamRepo: UpstreamRepository;
  gate: UpstreamGate;
  blobs: BlobStore;
  holds: BlobHolds;
  /** The data folder's disk (none on a bucket): a plan that does not fit fails at once. */
  space?: DiskSpace;
  publisher: PublishService;
  orgs: OrgService;
  /** Whose rights a run uses: checked when it starts and again before it publishes. */
  rights: MirrorRights;
  clock: Clock;
  ids: IdGen;
  log: Logger;
  /** Counts the bytes fetched from upstreams (metrics). */
  metrics?: Pick<Metrics, 'mirrorFetched'>;
}

/** Attempts per file, and the pause before the next: 1 s, then 2 s. */
const ATTEMPTS = 3;
const RETRY: Backoff = { firstMs: 1000, maxMs: 2000 };
/** Progress is written to the database at most this often (and when a file completes). */
const PROGRESS_EVERY_MS = 250;

export const cancelled = () => new DOMException('cancelled', 'AbortError');

/**
 * One job as this process runs it: reads the upstream, plans, checks the plan fits the disk,
 * downloads its files (up to the mirror's `parallel` at once, each also taking one of the
 * daemon's `downloads` slots, shared by every job), then publishes. Its bytes give the rate and
 * ETA. Throws what failed it; the runner settles that.
 */
export class JobRun {
  readonly abort = new AbortController();
  private readonly startedAt = Date.now();
  private startBytes: number;
  private bytes: number;
  private filesDone: number;
  private lastFlush = 0;

  constructor(
    readonly job: JobRow,
    private readonly deps: RunnerDeps,
    private readonly self: string,
    /** The daemon's total of concurrent downloads, across jobs. */
    private readonly downloads: LimitFunction,
  ) {
    this.startBytes = job.bytes_done;
    this.bytes = job.bytes_done;
    this.filesDone = job.files_done;
  }

  private now = () => this.deps.clock.now().toISOString();

  /** Bytes per second since this process started the job, and seconds left. */
  speed(job: JobRow): { rate: number | null; eta: number | null } {
    const seconds = (Date.now() - this.startedAt) / 1000;
    const rate = seconds > 0.5 ? Math.round((this.bytes - this.startBytes) / seconds) : null;
    const left = job.bytes_total - job.bytes_done;
    return { rate, eta: rate && left >= 0 ? Math.round(left / rate) : null };
  }

  async execute(): Promise<void> {
    const { job } = this;
    const signal = this.abort.signal;
    const mirror = await this.deps.repo.mirror(job.mirror_id);
    const upstream = mirror && (await this.deps.upstreamRepo.upstream(mirror.upstream_id));
    if (!mirror || !upstream) throw new NotFoundError('The mirror or its upstream was deleted.');
    await this.assertRights(mirror.id, upstream);
    const source = sourceFor(upstream, this.deps.gate);
    let plan: JobPlan = job.plan ? (JSON.parse(job.plan) as JobPlan) : await this.plan(mirror, source, signal);
    const files = await this.deps.repo.filesOf(job.id);
    const done = new Map<string, { sha256: string; size: number }>();
    const pending: FileRow[] = [];
    for (const f of files) {
      if (f.state === 'done' && f.blob_sha256 !== null && f.blob_size !== null)
        done.set(f.id, { sha256: f.blob_sha256, size: f.blob_size });
      else pending.push(f);
    }
    const fit = await storageFit(this.deps.space, (await bytesToFetch(pending, this.deps.blobs)).bytes);
    if (!fit.fits) throw unfit(fit);
    // Progress restarts from what is stored: finished files now, staged bytes as each resumes.
    this.bytes = this.startBytes = files.reduce((sum, f) => sum + (f.state === 'done' ? (f.blob_size ?? 0) : 0), 0);
    this.filesDone = files.length - pending.length;
    // A download holds its slots until its last byte has arrived: making the file durable
    // (fsync) and checking it run beside the next downloads. The first failure stops the rest.
    const own = pLimit(mirror.parallel);
    const runs: Array<Promise<void>> = [];
    let failure: unknown;
    const slots = pending.map((f) =>
      own(() =>
        this.downloads(
          () =>
            new Promise<void>((free) => {
              const run = (async () => {
                signal.throwIfAborted();
                done.set(f.id, await this.download(f, source, signal, free));
              })().catch((err: unknown) => {
                failure ??= err;
                this.abort.abort();
              });
              runs.push(run);
              void run.then(free);
            }),
        ),
      ),
    );
    await Promise.all(slots);
    // Every download has stopped writing before the job is settled (its staging may then go).
    await Promise.all(runs);
    if (failure !== undefined) throw failure;
    signal.throwIfAborted();
    // The downloads may have taken hours: whose rights it publishes with is looked at again.
    await this.assertRights(mirror.id, upstream);
    // From here the job can no longer be cancelled: it publishes everything or nothing.
    if (!(await this.deps.repo.startPublishing(job.id, this.self, this.now()))) throw cancelled();
    // Under a hold: the job's files stop counting as references once it is no longer active.
    plan = await this.deps.holds.keep(
      [...done.values()].map((b) => b.sha256),
      () => publishPlan(plan, mirror, done, this.deps, upstream.token !== null),
    );
    // The final counts too: two downloads' progress writes may reach PostgreSQL's pool out of order.
    await this.deps.repo.transitionJob(
      job.id,
      ['running'],
      {
        state: 'done',
        plan: JSON.stringify(plan),
        message: summary(plan),
        files_done: this.filesDone,
        bytes_done: this.bytes,
        finished_at: this.now(),
        updated_at: this.now(),
      },
      this.self,
    );
  }

  /**
   * The user the mirror runs as may still publish into its target through its upstream, as they
   * are now (mirror/run-rights.ts); else the mirror pauses with the reason, which its target's
   * owners see, and the job fails with it, having published nothing.
   */
  private async assertRights(mirrorId: string, upstream: UpstreamRow): Promise<void> {
    const mirror = await this.deps.repo.mirror(mirrorId);
    if (!mirror) throw new NotFoundError('The mirror was deleted.');
    const why = await this.deps.rights.pauseReason(mirror, upstream);
    if (!why) return;
    await this.deps.repo.updateMirror(mirror.id, { paused: why, next_run_at: null, updated_at: this.now() });
    throw new ForbiddenError(why);
  }

  private async plan(mirror: MirrorRow, source: UpstreamSource, signal: AbortSignal): Promise<JobPlan> {
    const { plan, files } = await buildJobPlan(mirror, this.job.id, {
      source,
      ids: this.deps.ids,
      signal,
      localVersions: localVersionsOf(this.deps),
    });
    const known = files.reduce((sum, f) => sum + (f.size ?? 0), 0);
    const patch = {
      plan: JSON.stringify(plan),
      files_total: files.length,
      bytes_total: known,
      message: `Fetching ${files.length} file(s).`,
      updated_at: this.now(),
    };
    if (!(await this.deps.repo.savePlan(this.job.id, this.self, patch, files))) throw cancelled();
    return plan;
  }

  /** Writes the job's progress; a job cancelled through another daemon, or taken over by a new leader, stops here. */
  private async flush(fileId: string, fileBytes: number): Promise<void> {
    this.lastFlush = Date.now();
    const job = await this.deps.repo.job(this.job.id);
    if (job?.state !== 'running' || job.runner !== this.self) {
      this.abort.abort();
      return;
    }
    await this.deps.repo.updateJob(this.job.id, { bytes_done: this.bytes, updated_at: this.now() });
    await this.deps.repo.updateFile(fileId, { bytes_done: fileBytes });
  }

  private async download(
    f: FileRow,
    source: UpstreamSource,
    signal: AbortSignal,
    received: () => void,
  ): Promise<{ sha256: string; size: number }> {
    let fileBytes = 0;
    const fetchOnce = () =>
      fetchFile(f, source, this.deps, {
        signal,
        received,
        // Recorded under the commit's hold: the job's file references the blob before garbage collection may look.
        settle: (blob) =>
          this.deps.repo.updateFile(f.id, {
            state: 'done',
            blob_sha256: blob.sha256,
            blob_size: blob.size,
            bytes_done: blob.size,
            size: blob.size,
          }),
        onSize: (size) =>
          void this.learnSize(f, size).catch((err: unknown) =>
            this.deps.log.warn({ err }, 'recording a file size failed'),
          ),
        onBytes: (n, kept) => {
          this.bytes += n;
          if (kept) this.startBytes += n;
          else this.deps.metrics?.mirrorFetched(n);
          fileBytes += n;
          if (Date.now() - this.lastFlush > PROGRESS_EVERY_MS) void this.flush(f.id, fileBytes).catch(() => undefined);
        },
      });
    // A connection that breaks is asked again for the rest (Range), a few times, before the job fails.
    // Only a failure of the connection is retried: anything else, and the last attempt's failure, fails the download
    // as it is. The download returns only once the attempt under way has stopped writing.
    let before = 0;
    const blob = await retrying(
      () => {
        before = fileBytes;
        return fetchOnce();
      },
      {
        backoff: RETRY,
        attempts: ATTEMPTS,
        retryable: (err) => err instanceof TransientUpstreamError,
        signal,
        onRetry: async (err, _wait, attempt) => {
          this.bytes -= fileBytes - before;
          fileBytes = before;
          const message = err instanceof Error ? err.message : String(err);
          this.deps.log.warn({ err, job: this.job.id, url: f.url, attempt }, 'mirror download interrupted; resuming');
          await this.deps.repo.updateJob(this.job.id, {
            message: `Resuming ${f.url} after: ${message}`,
            updated_at: this.now(),
          });
        },
      },
    );
    this.filesDone++;
    await this.deps.repo.updateJob(this.job.id, {
      files_done: this.filesDone,
      bytes_done: this.bytes,
      updated_at: this.now(),
    });
    return blob;
  }

  /** A file whose size was unknown at planning adds it to the job's total once it is known. */
  private async learnSize(f: FileRow, size: number): Promise<void> {
    if (f.size !== null) return;
    f.size = size;
    await this.deps.repo.updateFile(f.id, { size });
    await this.deps.repo.addToTotal(this.job.id, size);
  }
}

/** The done job's message: what it published, followed and skipped. */
function summary(plan: JobPlan): string {
  const boxes = plan.published ?? [];
  const changed = boxes
    .map((p) => {
      const what = [
        p.versions.length ? p.versions.join(', ') : '',
        p.updated?.length ? `updated ${p.updated.join(', ')}` : '',
        p.described?.length ? `notes of ${p.described.join(', ')}` : '',
        p.revoked?.length ? `revoked ${p.revoked.join(', ')}` : '',
      ].filter(Boolean);
      return what.length ? `${p.box} ${what.join('; ')}` : '';
    })
    .filter(Boolean);
  const skipped = plan.skipped?.length
    ? ` Skipped ${plan.skipped.length} box(es) the upstream would not show: ${plan.skipped.map((s) => s.box).join(', ')}.`
    : '';
  return `${changed.length ? `Published ${changed.join('; ')}` : 'Nothing new upstream'}.${skipped}`;
}
