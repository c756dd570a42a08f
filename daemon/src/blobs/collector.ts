import type { Logger } from 'pino';
import type { Clock } from '../lib/clock';
import type { BlobStore } from './blob-store';
import type { BlobHolds, BlobReferrer } from './holds';
import type { UploadRepository } from './uploads/repository';

export interface CollectResult {
  blobs: string[];
  uploads: string[];
  sessions: number;
  /** Stale multipart uploads aborted (stores that have them: S3). */
  multipart: number;
}

/** Multipart uploads younger than this are spared whatever the grace: a multi-GB upload can stream for hours. */
const MULTIPART_MIN_AGE_MS = 24 * 3_600_000;

/** Staging folders another feature still needs (mirror jobs that will resume). */
export type RetainedStaging = () => Promise<Set<string>>;

export interface CollectorDeps {
  blobs: BlobStore;
  uploads: UploadRepository;
  /** Every feature pointing rows at blobs (providers, pending direct uploads, mirror jobs). */
  referrers: BlobReferrer[];
  holds: BlobHolds;
  clock: Clock;
  log: Logger;
  retainedStaging?: RetainedStaging;
}

export interface CollectOptions {
  /** Spare blobs and staging folders touched this recently (a commit racing the collection). */
  graceMs?: number;
}

/**
 * A PUT that has not said it still streams for this long died with its daemon (uploads/service.ts beats every minute).
 */
export const RECEIVING_STALE_MS = 3 * 60_000;

/**
 * Garbage collection: blobs no provider (and no stored direct upload awaiting its callback)
 * points at, staging folders of uploads that are not streaming, and used or expired sessions.
 * Work left by a daemon that died mid-upload is recognised by its time: a receiving session
 * silent for RECEIVING_STALE_MS; alone on a data folder, also anything older than `start()`,
 * which only the daemon calls (CLI commands open the same data folder while it runs). Daemons
 * sharing a database (`shared`) cannot tell another's live upload by its start time.
 */
export class BlobCollector {
  private startedAt: Date;
  private running: Promise<CollectResult> | null = null;

  private readonly blobs: BlobStore;
  private readonly uploads: UploadRepository;
  private readonly clock: Clock;
  private readonly log: Logger;

  constructor(
    private readonly deps: CollectorDeps,
    private readonly opts: { graceMs?: number; shared?: boolean } = {},
  ) {
    this.blobs = deps.blobs;
    this.uploads = deps.uploads;
    this.clock = deps.clock;
    this.log = deps.log;
    this.startedAt = this.clock.now();
  }

  /** One collection at a time: a call during a run waits for that run. */
  run(opts: CollectOptions = {}): Promise<CollectResult> {
    this.running ??= this.collect(opts.graceMs ?? this.opts.graceMs ?? 10 * 60_000).finally(() => {
      this.running = null;
    });
    return this.running;
  }

  /** Collects once (before the daemon listens, so crash leftovers go first), then every `intervalMs`. */
  async start(intervalMs = 60 * 60_000): Promise<() => Promise<void>> {
    this.startedAt = this.clock.now();
    await this.run();
    const timer = setInterval(() => {
      this.run().catch((err: unknown) => this.log.error({ err }, 'garbage collection failed'));
    }, intervalMs);
    timer.unref();
    return async () => {
      clearInterval(timer);
      await this.running?.catch(() => undefined);
    };
  }

  private async collect(graceMs: number): Promise<CollectResult> {
    const now = this.clock.now();
    const stale = now.getTime() - RECEIVING_STALE_MS;
    const dead = this.opts.shared ? stale : Math.max(this.startedAt.getTime(), stale);
    await this.uploads.reopenReceiving(new Date(dead).toISOString());
    const sessions = await this.uploads.deleteFinished(now.toISOString());
    const cutoff = now.getTime() - graceMs;
    const uploads = await this.collectStaging(cutoff);
    const blobs = await this.collectBlobs(cutoff);
    const multipart = await this.sweepMultipart(new Date(now.getTime() - Math.max(graceMs, MULTIPART_MIN_AGE_MS)));
    await this.deps.holds.sweep();
    if (blobs.length || uploads.length || sessions || multipart)
      this.log.info({ blobs: blobs.length, uploads: uploads.length, sessions, multipart }, 'garbage collected');
    return { blobs, uploads, sessions, multipart };
  }

  /** A store that cannot list its multipart uploads must not stop the collection of blobs: a warning, and 0. */
  private async sweepMultipart(olderThan: Date): Promise<number> {
    if (!this.blobs.sweepMultipart) return 0;
    try {
      return await this.blobs.sweepMultipart(olderThan);
    } catch (err) {
      this.log.warn({ err }, 'stale multipart uploads could not be swept');
      return 0;
    }
  }

  private async collectStaging(cutoff: number): Promise<string[]> {
    const streaming = await this.uploads.liveIds();
    const kept = (await this.deps.retainedStaging?.()) ?? new Set<string>();
    const removed: string[] = [];
    for await (const s of this.blobs.listStaged()) {
      if (kept.has(s.uploadId)) continue;
      const fromEarlierProcess = !this.opts.shared && s.modifiedAt < this.startedAt;
      if (streaming.has(s.uploadId) && !fromEarlierProcess) continue;
      if (!fromEarlierProcess && s.modifiedAt.getTime() > cutoff) continue;
      await this.blobs.discard(s.uploadId);
      removed.push(s.uploadId);
    }
    return removed;
  }

  private async collectBlobs(cutoff: number): Promise<string[]> {
    const referenced = new Set<string>();
    for (const r of this.deps.referrers) for (const sha of await r.referencedBlobDigests()) referenced.add(sha);
    const removed: string[] = [];
    for await (const b of this.blobs.list()) {
      if (referenced.has(b.sha256) || b.modifiedAt.getTime() > cutoff) continue;
      // Looked at again under a hold, just before the delete: a commit of the same content may
      // have referenced it (or marked it fresh) since the listing; one that comes now waits.
      const remove = () => this.blobs.remove(b.sha256, { untouchedSince: new Date(cutoff) });
      if (await this.deps.holds.collect(b.sha256, this.deps.referrers, remove)) removed.push(b.sha256);
    }
    return removed;
  }
}
