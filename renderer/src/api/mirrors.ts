import type { z } from 'zod';
import { apiPath, type Fetcher } from './client';
import { putFile, type SentBytes } from './uploads';
import { load } from './load';
import {
  CacheAnswer,
  CreatedMirrorAnswer,
  ImportAnswer,
  JobAnswer,
  JobsAnswer,
  MirrorPlanAnswer,
  MirrorsAnswer,
  UpstreamAnswer,
  UpstreamsAnswer,
  type ImportResultJson,
} from '../../../daemon/src/contract/wire/mirror';
import type { CreateMirror, CreateUpstream, UpdateMirror } from '../../../daemon/src/contract/bodies/mirror';
import {
  CachePurgeAnswer,
  CacheSizeAnswer,
  ExportLine,
  ImportFolderAnswer,
  MirrorAnswer,
  UpstreamTestAnswer,
  type ExportRequest,
} from '../../../daemon/src/contract/wire/mirror-actions';
import { ApiError, CSRF_HEADERS, errorMessages } from './client';

const B = '/api/boxyard';

export type NewUpstream = z.input<typeof CreateUpstream>;

export const listUpstreams = (api: Fetcher) => load(api, UpstreamsAnswer, `${B}/upstreams`).then((r) => r.upstreams);
export const createUpstream = (api: Fetcher, upstream: NewUpstream) =>
  load(api, UpstreamAnswer, `${B}/upstreams`, { method: 'POST', body: { upstream } }).then((r) => r.upstream);
export const deleteUpstream = (api: Fetcher, id: string) => api(apiPath(`${B}/upstreams`, id), { method: 'DELETE' });
/** Asks the upstream with its stored token; a failure is the answer (`ok: false` with its code). */
export const testUpstream = (api: Fetcher, id: string) =>
  load(api, UpstreamTestAnswer, `${apiPath(`${B}/upstreams`, id)}/test`, { method: 'POST' }).then((r) => r.test);

export type NewMirror = z.input<typeof CreateMirror>;

export const listMirrors = (api: Fetcher) => load(api, MirrorsAnswer, `${B}/mirrors`).then((r) => r.mirrors);
export const createMirror = (api: Fetcher, mirror: NewMirror) =>
  load(api, CreatedMirrorAnswer, `${B}/mirrors`, { method: 'POST', body: { mirror } });
/** What a mirror with these settings would fetch now, and whether it fits the disk; nothing is made. */
export const planMirror = (api: Fetcher, mirror: NewMirror) =>
  load(api, MirrorPlanAnswer, `${B}/mirror-plans`, { method: 'POST', body: { mirror } }).then((r) => r.plan);
export const updateMirror = (api: Fetcher, id: string, mirror: z.input<typeof UpdateMirror>) =>
  load(api, MirrorAnswer, apiPath(`${B}/mirrors`, id), { method: 'PATCH', body: { mirror } }).then((r) => r.mirror);
export const deleteMirror = (api: Fetcher, id: string) => api(apiPath(`${B}/mirrors`, id), { method: 'DELETE' });
export const runMirror = (api: Fetcher, id: string) =>
  load(api, JobAnswer, `${apiPath(`${B}/mirrors`, id)}/run`, { method: 'POST' }).then((r) => r.job);
/** A paused mirror runs again, with the caller's rights (and through their upstream when it was another user's). */
export const resumeMirror = (api: Fetcher, id: string) =>
  load(api, MirrorAnswer, `${apiPath(`${B}/mirrors`, id)}/resume`, { method: 'POST', body: {} }).then((r) => r.mirror);

export const listJobs = (api: Fetcher, mirrorId: string) =>
  load(api, JobsAnswer, `${B}/mirror-jobs?${new URLSearchParams({ mirror: mirrorId })}`).then((r) => r.jobs);
export const getJob = (api: Fetcher, id: string) =>
  load(api, JobAnswer, apiPath(`${B}/mirror-jobs`, id)).then((r) => r.job);
export const cancelJob = (api: Fetcher, id: string) =>
  load(api, JobAnswer, `${apiPath(`${B}/mirror-jobs`, id)}/cancel`, { method: 'POST' }).then((r) => r.job);

export const listCache = (api: Fetcher) => load(api, CacheAnswer, `${B}/cache`).then((r) => r.boxes);
export const cacheSize = (api: Fetcher) => load(api, CacheSizeAnswer, `${B}/cache/size`).then((r) => r.cache);
/** Every cached box, or one (ORG/BOX); their files go at the next garbage collection. */
export const purgeCache = (api: Fetcher, box?: string) =>
  load(api, CachePurgeAnswer, `${B}/cache${box ? `?${new URLSearchParams({ box })}` : ''}`, { method: 'DELETE' }).then(
    (r) => r.purged,
  );

/** An export folder on the daemon's machine, copied by one mirror job per box. */
export const importFolder = (api: Fetcher, path: string) =>
  load(api, ImportFolderAnswer, `${B}/import-folder`, { method: 'POST', body: { import: { path } } }).then(
    (r) => r.mirrors,
  );

/**
 * Exports into a folder on the daemon's machine, calling `onLine` with each progress line the
 * daemon streams; resolves with the last (`done` or `failed`). fetch, not the JSON helper: the
 * answer is read as it arrives. Aborting `signal` stops the export (a re-run resumes it).
 */
export async function exportFolder(
  req: ExportRequest,
  onLine: (line: ExportLine) => void,
  signal?: AbortSignal,
): Promise<ExportLine> {
  const res = await fetch(`${B}/export`, {
    method: 'POST',
    credentials: 'same-origin',
    signal,
    headers: { accept: 'application/x-ndjson, application/json', 'content-type': 'application/json', ...CSRF_HEADERS },
    body: JSON.stringify({ export: req }),
  });
  if (!res.ok || !res.body) {
    const text = await res.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    throw new ApiError(res.status, errorMessages(body), body);
  }
  let last: ExportLine | null = null;
  let buffered = '';
  const decoder = new TextDecoder();
  const reader = res.body.getReader();
  for (let r = await reader.read(); !r.done; r = await reader.read()) {
    buffered += decoder.decode(r.value, { stream: true });
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const text of lines.filter(Boolean)) {
      last = ExportLine.parse(JSON.parse(text));
      onLine(last);
    }
  }
  if (!last || last.type === 'progress')
    throw new Error('The export stopped before it said it was done: export again to resume.');
  return last;
}

/**
 * Where a `.box` file is PUT to be imported: provider and architecture are the file's metadata.json's unless given
 * (the file form gives what it read and showed), a new box is private unless `private` is false.
 */
export const importPath = (t: ImportTarget) => {
  const q = new URLSearchParams({ release: String(t.release) });
  if (t.provider) q.set('provider', t.provider);
  if (t.architecture) q.set('architecture', t.architecture);
  if (t.private !== undefined) q.set('private', String(t.private));
  return `${apiPath(`${B}/import`, t.user, t.box, t.version)}?${q}`;
};

/** Splits "a, b ,c" into ["a","b","c"]; an empty field is no filter. */
export const splitList = (s: string): string[] =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

export interface ImportTarget {
  user: string;
  box: string;
  version: string;
  release: boolean;
  provider?: string;
  architecture?: string;
  /** Whether a box the import creates is private (the daemon's default: it is). */
  private?: boolean;
}

/** PUTs one `.box` to the import endpoint with upload progress (XHR: fetch() reports none). */
export async function importBoxFile(
  t: ImportTarget,
  file: File,
  onProgress: (sent: SentBytes) => void,
  signal?: AbortSignal,
): Promise<ImportResultJson> {
  const body = await putFile(importPath(t), file, onProgress, signal);
  const r = ImportAnswer.safeParse(body);
  if (!r.success)
    throw new Error(
      `Unexpected answer from the import: ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  return r.data.import;
}
