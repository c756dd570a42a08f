import { MIRROR_DEFAULTS } from '../contract/bodies/mirror';
import type { MirrorVisibility } from '../contract/wire/mirror';
import type { MirrorRow } from './repository';
import type { CreateMirror } from './schemas';

/**
 * What a new mirror's row holds where its request says nothing: the request's defaults
 * (contract/bodies/mirror.ts, which the web UI shows too) as stored. Migrations 006 and 018 gave
 * the same values to the columns as SQL defaults (kept for rows written before);
 * mirror-row.test.ts checks the two agree.
 */
export const MIRROR_ROW_DEFAULTS = {
  /** JSON arrays of names; [] means all. */
  providers: '[]',
  architectures: '[]',
  visibility: MIRROR_DEFAULTS.visibility,
  follow_revocations: MIRROR_DEFAULTS.follow_revocations ? 1 : 0,
  parallel: MIRROR_DEFAULTS.parallel,
} as const satisfies Partial<MirrorRow>;

/** The wire's `private` (true, false, or null/absent: as the upstream says) as stored. */
export const visibilityOf = (p: boolean | null | undefined): MirrorVisibility =>
  p === true ? 'private' : p === false ? 'public' : MIRROR_ROW_DEFAULTS.visibility;

/** Where a mirror publishes: its target, else the same name as its source. */
export const targetOf = (input: Pick<CreateMirror, 'source' | 'target'>): string => input.target ?? input.source;

/**
 * When a mirror that runs every `intervalMinutes` runs next, counted from `now`; null when it
 * has no schedule. The one rule for `next_run_at`: on creation, a change of interval, a
 * resumption, and each time a run is queued.
 */
export function nextRunAt(intervalMinutes: number | null, now: Date): string | null {
  return intervalMinutes ? new Date(now.getTime() + intervalMinutes * 60_000).toISOString() : null;
}

/** Who makes the mirror, through which upstream, and when: what a row needs beyond its request. */
export interface MirrorOrigin {
  id: string;
  upstreamId: string;
  /** Its creator, and the user it runs as until someone else resumes it. */
  userId: string;
  now: Date;
}

/**
 * The one way a request becomes a mirror row: the row `POST /mirrors` stores, and the row a dry
 * run plans with (never stored). Defaults come from MIRROR_ROW_DEFAULTS.
 */
export function mirrorRow(input: CreateMirror, origin: MirrorOrigin): MirrorRow {
  const at = origin.now.toISOString();
  const interval = input.interval_minutes ?? null;
  return {
    id: origin.id,
    upstream_id: origin.upstreamId,
    source: input.source,
    target: targetOf(input),
    versions: input.versions ?? null,
    latest: input.latest ?? null,
    providers: input.providers ? JSON.stringify(input.providers) : MIRROR_ROW_DEFAULTS.providers,
    architectures: input.architectures ? JSON.stringify(input.architectures) : MIRROR_ROW_DEFAULTS.architectures,
    visibility: visibilityOf(input.private),
    follow_revocations: (input.follow_revocations ?? MIRROR_DEFAULTS.follow_revocations) ? 1 : 0,
    parallel: input.parallel ?? MIRROR_ROW_DEFAULTS.parallel,
    interval_minutes: interval,
    retain: input.retain ?? null,
    next_run_at: nextRunAt(interval, origin.now),
    created_by: origin.userId,
    runs_as: origin.userId,
    paused: null,
    created_at: at,
    updated_at: at,
  };
}
