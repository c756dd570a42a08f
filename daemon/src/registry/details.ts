import type { MirroredBoxRow } from './upstream-records';
import type { BoxRecord, ProviderRow, RegistryRepository, VersionDetail, VersionRow } from './repository';
import type { VersionSet } from './tables';

export type { VersionDetail, VersionSet };
/** A box with its versions, newest (by Ruby Gem ordering) first; `shown` says which of them. */
export interface BoxDetail {
  box: BoxRecord;
  versions: readonly VersionDetail[];
  shown: VersionSet;
}
/** A box with each provider's finished downloads (by provider id) and whether the caller may change it. */
export interface BoxStats {
  detail: BoxDetail;
  downloads: ReadonlyMap<string, number>;
  mayManage: boolean;
  /** What a mirror last took from its upstream for the box and its versions (by number); undefined: not mirrored so. */
  followed?: { box: MirroredBoxRow; versions: ReadonlyMap<string, string | null> };
}
/** A box with only its current version: what search hits and namespace listings show. */
export interface BoxSummary {
  box: BoxRecord;
  current: VersionDetail | undefined;
}

/** The released version vagrant would pick: the highest active one. */
export const currentVersion = (d: BoxDetail): VersionDetail | undefined =>
  d.versions.find((v) => v.version.status === 'active');

/** A provider vagrant can download: an external URL, an uploaded image, or a file the cache fetches on demand. */
export const isUsable = (p: ProviderRow): boolean => p.url !== null || p.blob_sha256 !== null || p.source_url !== null;

/** Its bytes need no upstream: stored here, or at an external URL of the owner's choosing. */
export const isHeld = (p: ProviderRow): boolean => p.blob_sha256 !== null || (p.url !== null && p.source_url === null);

/**
 * One box's versions and providers in one query: those of `shown` (registry/access.ts versionsShown decides for a
 * caller).
 */
export async function loadDetail(repo: RegistryRepository, box: BoxRecord, shown: VersionSet): Promise<BoxDetail> {
  return { box, versions: await repo.versionsOfBox(box.id, shown), shown };
}

/** Each box with its current version, from memory when it was read before (repository.ts currentVersions). */
export async function loadSummaries(repo: RegistryRepository, boxes: readonly BoxRecord[]): Promise<BoxSummary[]> {
  const current = await repo.currentVersions(boxes.map((b) => b.id));
  return boxes.map((box, i) => ({ box, current: current[i] }));
}

export async function loadVersion(repo: RegistryRepository, version: VersionRow): Promise<VersionDetail> {
  return { version, providers: await repo.providersOf([version.id]) };
}
