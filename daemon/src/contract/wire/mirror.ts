import { z } from 'zod';

/**
 * The mirroring API's answers (under /api/boxyard; docs/mirroring.md) as the daemon sends
 * them: mirror/serialize.ts builds them, the web UI checks what it reads against them.
 * Pure (zod only): the renderer bundles it without the daemon's runtime code.
 */

const time = z.string();

export const UPSTREAM_KINDS = ['registry', 'catalog', 'folder'] as const;
export type UpstreamKind = (typeof UPSTREAM_KINDS)[number];

export const JOB_STATES = ['queued', 'running', 'done', 'failed', 'cancelled'] as const;
export type JobState = (typeof JOB_STATES)[number];
/**
 * A job in these states has not ended: it can be cancelled, it will still publish what it
 * downloaded (mirror/repository.ts, data/repository.ts), and its page keeps polling.
 */
export const ACTIVE_JOB_STATES: readonly JobState[] = ['queued', 'running'];

/** How visible a mirror's boxes are: as the upstream says (its box API), or always private or public. */
export const MIRROR_VISIBILITIES = ['upstream', 'private', 'public'] as const;
export type MirrorVisibility = (typeof MIRROR_VISIBILITIES)[number];

/**
 * What checking an upstream's token found (`GET /api/v2/authenticate`, on 404 `/api/v1/authenticate`, as
 * `vagrant cloud auth login --check` asks): `accepted`, or `not_checked` when the upstream answers neither (a server
 * without a token check; the copy goes on, and a token it refuses fails the copy there). A refusal (401, 403) is no
 * result: it fails the plan or the test with the upstream's words.
 */
export const TOKEN_CHECKS = ['accepted', 'not_checked'] as const;
export type TokenCheck = (typeof TOKEN_CHECKS)[number];
/** How the plan (`boxyard mirror`, the Move page) and the upstream's "Test" say a token check's result. */
export const TOKEN_CHECK_WORDS: Record<TokenCheck, string> = {
  accepted: 'it accepted the token',
  not_checked:
    'it cannot check tokens (404 at /api/v2/authenticate and /api/v1/authenticate), so the token was not checked',
};

/** An upstream: never its token, only whether it has one. */
export const UpstreamJson = z.object({
  id: z.string(),
  name: z.string(),
  url: z.string(),
  kind: z.enum(UPSTREAM_KINDS),
  /**
   * The user it belongs to (only their mirrors read from it; an administrator may still change
   * it by id), or null: the daemon's own (`--upstream`), or its owner was deleted.
   */
  owner: z.string().nullable(),
  has_token: z.boolean(),
  /** The SHA-256 fingerprint of the CA trusted for this upstream, or null (the system's CAs only). */
  ca_fingerprint: z.string().nullable(),
  timeout_seconds: z.number(),
  max_failures: z.number(),
  pause_minutes: z.number(),
  /** Failures in a row; at max_failures the upstream pauses until paused_until. */
  failures: z.number(),
  paused_until: time.nullable(),
  last_error: z.string().nullable(),
  created_at: time,
  updated_at: time,
});
export type UpstreamJson = z.infer<typeof UpstreamJson>;

export const JobJson = z.object({
  id: z.string(),
  mirror_id: z.string(),
  state: z.enum(JOB_STATES),
  message: z.string().nullable(),
  error_code: z.string().nullable(),
  bytes_total: z.number(),
  bytes_done: z.number(),
  files_total: z.number(),
  files_done: z.number(),
  /** Null until there is enough to measure. */
  rate_bytes_per_second: z.number().nullable(),
  eta_seconds: z.number().nullable(),
  created_at: time,
  started_at: time.nullable(),
  finished_at: time.nullable(),
  /** What the job published, once it has: each box with its new versions (and those retention removed). */
  published: z.array(
    z.object({
      box: z.string(),
      versions: z.array(z.string()),
      pruned: z.array(z.string()).optional(),
      /**
       * Taken from the upstream on this run: box fields (`short_description`, `description`, `private`), version
       * descriptions, revocations.
       */
      updated: z.array(z.string()).optional(),
      described: z.array(z.string()).optional(),
      revoked: z.array(z.string()).optional(),
    }),
  ),
  /** Boxes of an organization the upstream listed but would not show, with why. */
  skipped: z.array(z.object({ box: z.string(), reason: z.string() })),
});
export type JobJson = z.infer<typeof JobJson>;

export const MirrorJson = z.object({
  id: z.string(),
  /** Null if the upstream is gone. */
  upstream: z.object({ id: z.string(), name: z.string(), url: z.string(), kind: z.enum(UPSTREAM_KINDS) }).nullable(),
  source: z.string(),
  target: z.string(),
  /** A version constraint (`>= 1.0, < 2`), or null for every version. */
  versions: z.string().nullable(),
  latest: z.number().nullable(),
  /** Empty: every provider (and architecture). */
  providers: z.array(z.string()),
  architectures: z.array(z.string()),
  /** true: always private; false: always public; null: as the upstream says. */
  private: z.boolean().nullable(),
  follow_revocations: z.boolean(),
  parallel: z.number(),
  interval_minutes: z.number().nullable(),
  retain: z.number().nullable(),
  next_run_at: time.nullable(),
  /**
   * Whose rights its runs use, as they are when it runs: its creator, or whoever resumed it last (null: that user was
   * deleted).
   */
  runs_as: z.string().nullable(),
  /**
   * Why it stopped running (the user it runs as may no longer publish into its target, or read
   * through its upstream), null while it runs. A paused mirror publishes nothing, its schedule
   * waits, and someone who may publish into its target resumes it (`POST /mirrors/:id/resume`).
   */
  paused: z.string().nullable(),
  last_job: JobJson.nullable(),
  created_at: time,
  updated_at: time,
});
export type MirrorJson = z.infer<typeof MirrorJson>;

/**
 * One box of a mirror's plan, summed up: its versions to fetch, with their files and bytes (the daemon's own plan of
 * the box, mirror/plans/box-plan.ts PlannedBox, holds the files themselves).
 */
export const MirrorPlanBoxJson = z.object({
  source: z.string(),
  target: z.string(),
  /** The local box exists already (only versions it lacks are fetched). */
  exists: z.boolean(),
  /** How visible the copy will be. */
  private: z.boolean(),
  versions: z.array(z.object({ version: z.string(), files: z.number(), bytes: z.number() })),
  files: z.number(),
  bytes: z.number(),
});
export type MirrorPlanBoxJson = z.infer<typeof MirrorPlanBoxJson>;

/**
 * `POST /mirror-plans`: what a mirror with these settings would fetch now, and whether it fits
 * the disk (`storage`'s figures are null on a bucket). Nothing is made.
 */
export const MirrorPlanJson = z.object({
  source: z.string(),
  target: z.string(),
  upstream: z.object({
    url: z.string(),
    kind: z.enum(UPSTREAM_KINDS),
    has_token: z.boolean(),
    /** What checking the token found; null without a token to check (none given, or not a registry). */
    token_check: z.enum(TOKEN_CHECKS).nullable(),
  }),
  boxes: z.array(MirrorPlanBoxJson),
  skipped: z.array(z.object({ box: z.string(), reason: z.string() })),
  totals: z.object({
    boxes: z.number(),
    versions: z.number(),
    files: z.number(),
    bytes: z.number(),
    /** Files whose size the upstream did not tell (learnt as they download; not in `bytes`). */
    unknown_sizes: z.number(),
  }),
  storage: z.object({
    /** Bytes still to fetch: files stored here already (same sha256) are not. */
    needed_bytes: z.number(),
    free_bytes: z.number().nullable(),
    reserve_bytes: z.number().nullable(),
    free_after_bytes: z.number().nullable(),
    fits: z.boolean(),
  }),
});
export type MirrorPlanJson = z.infer<typeof MirrorPlanJson>;
export const MirrorPlanAnswer = z.object({ plan: MirrorPlanJson });

/** A box the pull-through cache holds, and how many of its provider files it has fetched. */
export const CachedBoxJson = z.object({
  tag: z.string(),
  upstream: z.object({ id: z.string(), name: z.string().nullable(), url: z.string().nullable() }).nullable(),
  source: z.string(),
  synced_at: time,
  providers_total: z.number(),
  providers_cached: z.number(),
});
export type CachedBoxJson = z.infer<typeof CachedBoxJson>;

/** `PUT /import/:user/:box/:version`: the provider the .box file became (named by its metadata.json). */
export const ImportResultJson = z.object({
  box: z.string(),
  version: z.string(),
  provider: z.string(),
  architecture: z.string(),
  sha256: z.string(),
  size: z.number(),
  released: z.boolean(),
});
export type ImportResultJson = z.infer<typeof ImportResultJson>;

export const UpstreamsAnswer = z.object({ upstreams: z.array(UpstreamJson) });
export const UpstreamAnswer = z.object({ upstream: UpstreamJson });
export const MirrorsAnswer = z.object({ mirrors: z.array(MirrorJson) });
/** `POST /mirrors`: the job too when the mirror was told to run at once. */
export const CreatedMirrorAnswer = z.object({ mirror: MirrorJson, job: JobJson.nullable() });
export const JobAnswer = z.object({ job: JobJson });
export const JobsAnswer = z.object({ jobs: z.array(JobJson) });
export const CacheAnswer = z.object({ boxes: z.array(CachedBoxJson) });
export const ImportAnswer = z.object({ import: ImportResultJson });
