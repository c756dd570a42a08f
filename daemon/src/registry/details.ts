import { sortByGemVersionDesc } from './gem-version';
import type { BoxRecord, ProviderRow, RegistryRepository, VersionRow } from './repository';

export interface VersionDetail { version: VersionRow; providers: ProviderRow[] }
/** A box with its versions, newest (by Ruby Gem ordering) first. */
export interface BoxDetail { box: BoxRecord; versions: VersionDetail[] }
/** A box with only its current version: what search hits and namespace listings show. */
export interface BoxSummary { box: BoxRecord; current: VersionDetail | undefined }

/** The released version vagrant would pick: the highest active one. */
export const currentVersion = (d: BoxDetail): VersionDetail | undefined => d.versions.find((v) => v.version.status === 'active');

/** A provider vagrant can download: an external URL, an uploaded image, or a file the cache fetches on demand. */
export const isUsable = (p: ProviderRow): boolean => p.url !== null || p.blob_sha256 !== null || p.source_url !== null;

/** Its bytes need no upstream: stored here, or at an external URL of the owner's choosing. */
export const isHeld = (p: ProviderRow): boolean => p.blob_sha256 !== null || (p.url !== null && p.source_url === null);

/** One box's versions and providers in one query (only released versions for a catalog). */
export async function loadDetail(repo: RegistryRepository, box: BoxRecord, onlyActive = false): Promise<BoxDetail> {
  const { versions, providers } = await repo.versionsOfBox(box.id, onlyActive);
  const byVersion = groupBy(providers, (p) => p.version_id);
  return {
    box,
    versions: sortByGemVersionDesc(versions, (v) => v.version).map((version) => ({ version, providers: byVersion.get(version.id) ?? [] })),
  };
}

/**
 * The current version of each box with its providers, in three queries whatever the number of
 * boxes: the numbers of the released versions (the highest is picked here, since SQL cannot
 * order Ruby Gem versions), then the picked rows and their providers. A namespace of thousands of
 * boxes no longer loads every version and provider it has.
 */
export async function loadSummaries(repo: RegistryRepository, boxes: BoxRecord[]): Promise<BoxSummary[]> {
  const numbers = await repo.activeVersionNumbers(boxes.map((b) => b.id));
  const picked = [...groupBy(numbers, (v) => v.box_id).values()].map((vs) => sortByGemVersionDesc(vs, (v) => v.version)[0].id);
  const versions = new Map((await repo.versionsById(picked)).map((v) => [v.box_id, v]));
  const byVersion = groupBy(await repo.providersOf(picked), (p) => p.version_id);
  return boxes.map((box) => {
    const version = versions.get(box.id);
    return { box, current: version && { version, providers: byVersion.get(version.id) ?? [] } };
  });
}

export async function loadVersion(repo: RegistryRepository, version: VersionRow): Promise<VersionDetail> {
  return { version, providers: await repo.providersOf([version.id]) };
}

function groupBy<T>(items: T[], key: (t: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const it of items) {
    const k = key(it);
    const list = m.get(k);
    if (list) list.push(it);
    else m.set(k, [it]);
  }
  return m;
}
