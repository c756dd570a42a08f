import { z } from 'zod';
import { apiPath, type Fetcher } from './client';
import { putFile } from './boxes';
import { load } from './wire';

// Lenient views of the mirroring API's wire shapes (docs/mirroring-api.md), like wire.ts.

const B = '/api/boxyard';
const str = z.string().nullish();
const num = z.number().nullish();

export const Upstream = z.object({
  id: z.string(),
  name: z.string(),
  url: z.string(),
  kind: str,
  has_token: z.boolean().nullish(),
  timeout_seconds: num,
  max_failures: num,
  pause_minutes: num,
  failures: num,
  paused_until: str,
  last_error: str,
  created_at: str,
});
export type Upstream = z.infer<typeof Upstream>;

export const JOB_ACTIVE = new Set(['queued', 'running']);

export const Job = z.object({
  id: z.string(),
  mirror_id: str,
  state: z.string(),
  message: str,
  error_code: str,
  bytes_total: num,
  bytes_done: num,
  files_total: num,
  files_done: num,
  rate_bytes_per_second: num,
  eta_seconds: num,
  created_at: str,
  started_at: str,
  finished_at: str,
  published: z.array(z.object({ box: z.string(), versions: z.array(z.string()) })).nullish(),
});
export type Job = z.infer<typeof Job>;

export const Mirror = z.object({
  id: z.string(),
  upstream: z.object({ id: z.string(), name: z.string(), url: z.string(), kind: str }).nullish(),
  source: z.string(),
  target: z.string(),
  versions: str,
  latest: num,
  providers: z.array(z.string()).nullish(),
  architectures: z.array(z.string()).nullish(),
  private: z.boolean().nullish(),
  interval_minutes: num,
  retain: num,
  next_run_at: str,
  last_job: Job.nullish(),
  created_at: str,
});
export type Mirror = z.infer<typeof Mirror>;

export const CachedBox = z.object({
  tag: z.string(),
  upstream: z.object({ id: z.string(), name: z.string(), url: z.string() }).nullish(),
  source: str,
  synced_at: str,
  providers_total: num,
  providers_cached: num,
});
export type CachedBox = z.infer<typeof CachedBox>;

export interface NewUpstream {
  name: string;
  url: string;
  /** Write-only: sent once, never read back (the answer says `has_token`). */
  token?: string;
  timeout_seconds?: number;
  max_failures?: number;
  pause_minutes?: number;
}

export const listUpstreams = (api: Fetcher) =>
  load(api, z.object({ upstreams: z.array(Upstream) }), `${B}/upstreams`).then((r) => r.upstreams);
export const createUpstream = (api: Fetcher, upstream: NewUpstream) =>
  load(api, z.object({ upstream: Upstream }), `${B}/upstreams`, { method: 'POST', body: { upstream } }).then((r) => r.upstream);
export const deleteUpstream = (api: Fetcher, id: string) => api(apiPath(`${B}/upstreams`, id), { method: 'DELETE' });

export interface NewMirror {
  upstream_id: string;
  source: string;
  target?: string;
  versions?: string;
  latest?: number;
  providers?: string[];
  architectures?: string[];
  private?: boolean;
  interval_minutes?: number;
  retain?: number;
  run?: boolean;
}

export const listMirrors = (api: Fetcher) =>
  load(api, z.object({ mirrors: z.array(Mirror) }), `${B}/mirrors`).then((r) => r.mirrors);
export const createMirror = (api: Fetcher, mirror: NewMirror) =>
  load(api, z.object({ mirror: Mirror, job: Job.nullish() }), `${B}/mirrors`, { method: 'POST', body: { mirror } });
export const deleteMirror = (api: Fetcher, id: string) => api(apiPath(`${B}/mirrors`, id), { method: 'DELETE' });
export const runMirror = (api: Fetcher, id: string) =>
  load(api, z.object({ job: Job }), `${apiPath(`${B}/mirrors`, id)}/run`, { method: 'POST' }).then((r) => r.job);

export const listJobs = (api: Fetcher, mirrorId: string) =>
  load(api, z.object({ jobs: z.array(Job) }), `${B}/mirror-jobs?${new URLSearchParams({ mirror: mirrorId })}`).then((r) => r.jobs);
export const cancelJob = (api: Fetcher, id: string) =>
  load(api, z.object({ job: Job }), `${apiPath(`${B}/mirror-jobs`, id)}/cancel`, { method: 'POST' }).then((r) => r.job);

export const listCache = (api: Fetcher) =>
  load(api, z.object({ boxes: z.array(CachedBox) }), `${B}/cache`).then((r) => r.boxes);

/** Where a `.box` file is PUT to be imported (provider and architecture come from its metadata.json). */
export const importPath = (user: string, box: string, version: string, release: boolean) =>
  `${apiPath(`${B}/import`, user, box, version)}?${new URLSearchParams({ release: String(release) })}`;

/** Splits "a, b ,c" into ["a","b","c"]; an empty field is no filter. */
export const splitList = (s: string): string[] => s.split(',').map((x) => x.trim()).filter(Boolean);

export const ImportResult = z.object({
  import: z.object({
    box: z.string(),
    version: z.string(),
    provider: z.string(),
    architecture: str,
    sha256: str,
    size: num,
    released: z.boolean().nullish(),
  }),
});
export type ImportResult = z.infer<typeof ImportResult>['import'];

export interface ImportTarget { user: string; box: string; version: string; release: boolean }

/** PUTs one `.box` to the import endpoint with upload progress (XHR: fetch() reports none). */
export async function importBoxFile(t: ImportTarget, file: File, onProgress: (fraction: number) => void): Promise<ImportResult> {
  const body = await putFile(importPath(t.user, t.box, t.version, t.release), file, onProgress);
  const r = ImportResult.safeParse(body);
  if (!r.success) throw new Error(`Unexpected answer from the import: ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return r.data.import;
}
