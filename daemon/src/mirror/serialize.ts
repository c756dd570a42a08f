import type { JobRow, MirrorRow } from './repository';
import type { CachedBoxRow } from './cache/repository';
import type { UpstreamRow } from './upstreams/repository';
import type { JobPlan } from './plans/job-plan';
import { fingerprintOf } from '../tls/fingerprint';
import { parseList } from './plans/job-plan';

/** An upstream as the API shows it: never its token, only whether it has one; whose it is. */
export function upstreamJson(u: UpstreamRow) {
  return {
    id: u.id,
    name: u.name,
    url: u.url,
    kind: u.kind,
    owner: u.owner_name,
    has_token: u.token !== null,
    ca_fingerprint: u.ca ? fingerprintOf(u.ca) : null,
    timeout_seconds: u.timeout_seconds,
    max_failures: u.max_failures,
    pause_minutes: u.pause_minutes,
    failures: u.failures,
    paused_until: u.paused_until,
    last_error: u.last_error,
    created_at: u.created_at,
    updated_at: u.updated_at,
  };
}

export interface Speed {
  rate: number | null;
  eta: number | null;
}

export function jobJson(j: JobRow, speed: Speed) {
  const plan = j.plan ? (JSON.parse(j.plan) as JobPlan) : null;
  return {
    id: j.id,
    mirror_id: j.mirror_id,
    state: j.state,
    message: j.message,
    error_code: j.error_code,
    bytes_total: j.bytes_total,
    bytes_done: j.bytes_done,
    files_total: j.files_total,
    files_done: j.files_done,
    rate_bytes_per_second: speed.rate,
    eta_seconds: speed.eta,
    created_at: j.created_at,
    started_at: j.started_at,
    finished_at: j.finished_at,
    published: plan?.published ?? [],
    skipped: plan?.skipped ?? [],
  };
}

/** `runsAs`: the name of the user the mirror runs as, or null when they were deleted. */
export function mirrorJson(
  m: MirrorRow,
  u: UpstreamRow | undefined,
  runsAs: string | null,
  last: ReturnType<typeof jobJson> | null,
) {
  return {
    id: m.id,
    upstream: u ? { id: u.id, name: u.name, url: u.url, kind: u.kind } : null,
    source: m.source,
    target: m.target,
    versions: m.versions,
    latest: m.latest,
    providers: parseList(m.providers),
    architectures: parseList(m.architectures),
    private: m.visibility === 'upstream' ? null : m.visibility === 'private',
    follow_revocations: m.follow_revocations === 1,
    parallel: m.parallel,
    interval_minutes: m.interval_minutes,
    retain: m.retain,
    next_run_at: m.next_run_at,
    runs_as: runsAs,
    paused: m.paused,
    last_job: last,
    created_at: m.created_at,
    updated_at: m.updated_at,
  };
}

type CachedListRow = Pick<CachedBoxRow, 'source' | 'synced_at'> & {
  name: string;
  username: string | null;
  upstream_id: string | null;
  upstream_name: string | null;
  upstream_url: string | null;
  providers_total: number | string | bigint | null;
  providers_cached: number | string | bigint | null;
};

export function cachedBoxJson(r: CachedListRow) {
  return {
    tag: `${r.username}/${r.name}`,
    upstream: r.upstream_id ? { id: r.upstream_id, name: r.upstream_name, url: r.upstream_url } : null,
    source: r.source,
    synced_at: r.synced_at,
    providers_total: Number(r.providers_total ?? 0),
    providers_cached: Number(r.providers_cached ?? 0),
  };
}
