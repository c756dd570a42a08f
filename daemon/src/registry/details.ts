import { compareGemVersions } from './gem-version';
import type { BoxRecord, ProviderRow, RegistryRepository, VersionRow } from './repository';

export interface VersionDetail { version: VersionRow; providers: ProviderRow[] }
/** A box with its versions, newest (by Ruby Gem ordering) first. */
export interface BoxDetail { box: BoxRecord; versions: VersionDetail[] }

/** The released version vagrant would pick: the highest active one. */
export const currentVersion = (d: BoxDetail): VersionDetail | undefined => d.versions.find((v) => v.version.status === 'active');

/** A provider vagrant can download: an external URL, an uploaded image, or a file the cache fetches on demand. */
export const isUsable = (p: ProviderRow): boolean => p.url !== null || p.blob_sha256 !== null || p.source_url !== null;

/** Its bytes need no upstream: stored here, or at an external URL of the owner's choosing. */
export const isHeld = (p: ProviderRow): boolean => p.blob_sha256 !== null || (p.url !== null && p.source_url === null);

/** Loads versions and providers of many boxes in two queries. */
export async function loadDetails(repo: RegistryRepository, boxes: BoxRecord[], onlyActive = false): Promise<BoxDetail[]> {
  const versions = await repo.versionsOf(boxes.map((b) => b.id), onlyActive);
  const providers = await repo.providersOf(versions.map((v) => v.id));
  const byVersion = groupBy(providers, (p) => p.version_id);
  const byBox = groupBy(versions, (v) => v.box_id);
  return boxes.map((box) => ({
    box,
    versions: (byBox.get(box.id) ?? [])
      .sort((a, b) => compareGemVersions(b.version, a.version))
      .map((version) => ({ version, providers: byVersion.get(version.id) ?? [] })),
  }));
}

export async function loadDetail(repo: RegistryRepository, box: BoxRecord, onlyActive = false): Promise<BoxDetail> {
  return (await loadDetails(repo, [box], onlyActive))[0];
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
