import type { z } from 'zod';
import { apiPath, type Fetcher } from './client';
import { load } from './load';
import type {
  CreateBox,
  CreateProvider,
  CreateVersion,
  UpdateBox,
  UpdateVersion,
} from '../../../daemon/src/contract/bodies/registry';
import { BoxStatsAnswer } from '../../../daemon/src/contract/wire/box-stats';
import { BoxJson, ProviderJson, UploadTargetJson, VersionJson } from '../../../daemon/src/contract/wire/registry';

const V1 = '/api/v1';
export const boxPath = (user: string, name: string) => apiPath(`${V1}/box`, user, name);
export const versionPath = (user: string, name: string, version: string) =>
  `${boxPath(user, name)}/version/${encodeURIComponent(version)}`;
/** A provider; with an architecture the path names that entry, without it the default-architecture one. */
export interface ProviderRef {
  user: string;
  name: string;
  version: string;
  provider: string;
  architecture?: string | null;
}
export const providerPath = (r: ProviderRef) =>
  `${versionPath(r.user, r.name, r.version)}/provider/${encodeURIComponent(r.provider)}${r.architecture ? `/${encodeURIComponent(r.architecture)}` : ''}`;

export const getBox = (api: Fetcher, user: string, name: string) => load(api, BoxJson, boxPath(user, name));

export const createBox = (api: Fetcher, box: z.input<typeof CreateBox>) =>
  load(api, BoxJson, `${V1}/boxes`, { method: 'POST', body: { box } });
export const deleteBox = (api: Fetcher, user: string, name: string) => api(boxPath(user, name), { method: 'DELETE' });
export const updateBox = (api: Fetcher, user: string, name: string, box: z.input<typeof UpdateBox>) =>
  load(api, BoxJson, boxPath(user, name), { method: 'PUT', body: { box } });
/** Sizes, downloads per version and provider, and whether the caller may edit (GET /api/boxyard/boxes/…/stats). */
export const getBoxStats = (api: Fetcher, user: string, name: string) =>
  load(api, BoxStatsAnswer, `${apiPath('/api/boxyard/boxes', user, name)}/stats`).then((r) => r.stats);

export const createVersion = (api: Fetcher, user: string, name: string, version: z.input<typeof CreateVersion>) =>
  load(api, VersionJson, `${boxPath(user, name)}/versions`, { method: 'POST', body: { version } });
export const updateVersion = (
  api: Fetcher,
  user: string,
  name: string,
  version: string,
  patch: z.input<typeof UpdateVersion>,
) => load(api, VersionJson, versionPath(user, name, version), { method: 'PUT', body: { version: patch } });
export const deleteVersion = (api: Fetcher, user: string, name: string, version: string) =>
  api(versionPath(user, name, version), { method: 'DELETE' });
export const setVersionStatus = (
  api: Fetcher,
  user: string,
  name: string,
  version: string,
  action: 'release' | 'revoke',
) => load(api, VersionJson, `${versionPath(user, name, version)}/${action}`, { method: 'PUT' });

export type NewProvider = z.input<typeof CreateProvider>;
export const createProvider = (api: Fetcher, user: string, name: string, version: string, provider: NewProvider) =>
  load(api, ProviderJson, `${versionPath(user, name, version)}/providers`, { method: 'POST', body: { provider } });
export const deleteProvider = (api: Fetcher, ref: ProviderRef) => api(providerPath(ref), { method: 'DELETE' });

export const prepareUpload = (api: Fetcher, ref: ProviderRef) =>
  load(api, UploadTargetJson, `${providerPath(ref)}/upload`);
