import type { BoxDetail, VersionDetail } from '../details';
import type { BoxRecord, ProviderRow, VersionRow } from '../repository';
import { advertisedChecksum } from '../providers/checksums';
import { downloadUrl } from '../serialize';
import type { Urls } from '../../http/urls';

/**
 * HCP's registry API (2022-09-30) out, as hcp-sdk-go's models decode it: int64 fields (`downloads`, `size`, the
 * counts) are JSON strings, times RFC 3339, states upper case.
 */

const time = (iso: string) => new Date(iso).toISOString();
const unique = (xs: readonly string[]) => [...new Set(xs)];

export function hcpArchitecture(box: BoxRecord, version: VersionRow, p: ProviderRow, urls: Urls) {
  const sum = advertisedChecksum(p);
  return {
    architecture_type: p.architecture,
    default: p.default_architecture === 1,
    box_data: {
      checksum: sum?.checksum ?? '',
      checksum_type: sum ? sum.checksum_type.toUpperCase() : 'NONE',
      download_url: downloadUrl(box, version, p, urls),
      size: String(p.size ?? 0),
      created_at: time(p.created_at),
      updated_at: time(p.updated_at),
    },
    created_at: time(p.created_at),
    updated_at: time(p.updated_at),
  };
}

/** A provider is every entry of one name: its architectures. */
export function hcpProvider(box: BoxRecord, version: VersionRow, entries: readonly ProviderRow[], urls: Urls) {
  const types = entries.map((e) => e.architecture);
  return {
    name: entries[0]?.name ?? '',
    architectures: entries.map((e) => hcpArchitecture(box, version, e, urls)),
    summary: { architectures_count: String(types.length), architecture_types: types },
    created_at: time(entries.map((e) => e.created_at).sort()[0]),
    updated_at: time(
      entries
        .map((e) => e.updated_at)
        .sort()
        .at(-1) as string,
    ),
  };
}

export function hcpVersion(box: BoxRecord, v: VersionDetail, urls: Urls) {
  const names = unique(v.providers.map((p) => p.name));
  return {
    name: v.version.version,
    description: v.version.description,
    state: v.version.status.toUpperCase(),
    summary: { providers_count: String(names.length), provider_names: names },
    providers: names.map((n) =>
      hcpProvider(
        box,
        v.version,
        v.providers.filter((p) => p.name === n),
        urls,
      ),
    ),
    created_at: time(v.version.created_at),
    updated_at: time(v.version.updated_at),
  };
}

function boxState(d: BoxDetail): string {
  if (d.versions.length === 0) return 'NO_VERSIONS';
  if (!d.versions.some((v) => v.version.status === 'active')) return 'NO_RELEASED_VERSIONS';
  return 'AVAILABLE';
}

export function hcpBox(d: BoxDetail, urls: Urls) {
  const released = d.versions.filter((v) => v.version.status === 'active').map((v) => v.version.updated_at);
  return {
    name: d.box.name,
    description: d.box.description,
    short_description: d.box.short_description,
    is_private: d.box.private === 1,
    downloads: String(d.box.downloads),
    state: boxState(d),
    summary: {
      versions_count: String(d.versions.length),
      provider_names: unique(d.versions.flatMap((v) => v.providers.map((p) => p.name))),
      ...(released.length > 0 ? { latest_released_at: time(released.sort().at(-1) as string) } : {}),
    },
    versions: d.versions.map((v) => hcpVersion(d.box, v, urls)),
    created_at: time(d.box.created_at),
    updated_at: time(d.box.updated_at),
  };
}

/** Whose a box is: the id of its organization or user, which stands for both HCP's organization and project. */
export const ownerIdOf = (box: BoxRecord): string => box.organization_id ?? box.user_id ?? '';

/**
 * The operation a box's creation returns, finished: its id is the box's own (registry/hcp/operation-routes.ts), its
 * location the owner's id.
 */
export function createdOperation(box: BoxRecord) {
  const owner = ownerIdOf(box);
  return {
    id: box.id,
    state: 'DONE',
    location: { organization_id: owner, project_id: owner },
    created_at: time(box.created_at),
    updated_at: time(box.created_at),
  };
}
