import type { z } from 'zod';
import { apiPath, type Fetcher } from './client';
import { putFile } from './uploads';
import { load } from './load';
import {
  CacheAnswer, CreatedMirrorAnswer, ImportAnswer, JobAnswer, JobsAnswer, MirrorsAnswer, UpstreamAnswer, UpstreamsAnswer,
  type ImportResultJson,
} from '../../../daemon/src/contract/wire-mirror';
import type { CreateMirror, CreateUpstream } from '../../../daemon/src/contract/bodies-mirror';

const B = '/api/boxyard';

export type NewUpstream = z.input<typeof CreateUpstream>;

export const listUpstreams = (api: Fetcher) =>
  load(api, UpstreamsAnswer, `${B}/upstreams`).then((r) => r.upstreams);
export const createUpstream = (api: Fetcher, upstream: NewUpstream) =>
  load(api, UpstreamAnswer, `${B}/upstreams`, { method: 'POST', body: { upstream } }).then((r) => r.upstream);
export const deleteUpstream = (api: Fetcher, id: string) => api(apiPath(`${B}/upstreams`, id), { method: 'DELETE' });

export type NewMirror = z.input<typeof CreateMirror>;

export const listMirrors = (api: Fetcher) =>
  load(api, MirrorsAnswer, `${B}/mirrors`).then((r) => r.mirrors);
export const createMirror = (api: Fetcher, mirror: NewMirror) =>
  load(api, CreatedMirrorAnswer, `${B}/mirrors`, { method: 'POST', body: { mirror } });
export const deleteMirror = (api: Fetcher, id: string) => api(apiPath(`${B}/mirrors`, id), { method: 'DELETE' });
export const runMirror = (api: Fetcher, id: string) =>
  load(api, JobAnswer, `${apiPath(`${B}/mirrors`, id)}/run`, { method: 'POST' }).then((r) => r.job);

export const listJobs = (api: Fetcher, mirrorId: string) =>
  load(api, JobsAnswer, `${B}/mirror-jobs?${new URLSearchParams({ mirror: mirrorId })}`).then((r) => r.jobs);
export const cancelJob = (api: Fetcher, id: string) =>
  load(api, JobAnswer, `${apiPath(`${B}/mirror-jobs`, id)}/cancel`, { method: 'POST' }).then((r) => r.job);

export const listCache = (api: Fetcher) =>
  load(api, CacheAnswer, `${B}/cache`).then((r) => r.boxes);

/** Where a `.box` file is PUT to be imported (provider and architecture come from its metadata.json). */
export const importPath = (user: string, box: string, version: string, release: boolean) =>
  `${apiPath(`${B}/import`, user, box, version)}?${new URLSearchParams({ release: String(release) })}`;

/** Splits "a, b ,c" into ["a","b","c"]; an empty field is no filter. */
export const splitList = (s: string): string[] => s.split(',').map((x) => x.trim()).filter(Boolean);

export interface ImportTarget { user: string; box: string; version: string; release: boolean }

/** PUTs one `.box` to the import endpoint with upload progress (XHR: fetch() reports none). */
export async function importBoxFile(t: ImportTarget, file: File, onProgress: (fraction: number) => void): Promise<ImportResultJson> {
  const body = await putFile(importPath(t.user, t.box, t.version, t.release), file, ({ loaded, total }) => onProgress(total > 0 ? loaded / total : 0));
  const r = ImportAnswer.safeParse(body);
  if (!r.success) throw new Error(`Unexpected answer from the import: ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return r.data.import;
}
