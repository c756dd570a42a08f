/** The plan of one upstream box: which of its catalog's versions and provider files a mirror takes (`planBox`). */
import { AppError, UpstreamError } from '../../lib/errors';
import { AccountName, isGemVersion } from '../../contract/names';
import { BoxName, isArchitecture } from '../../contract/bodies/registry';
import { DEFAULT_ARCHITECTURE } from '../../registry/schemas';
import { normalizeChecksum } from '../../registry/providers/checksums';
import type { DigestAlgorithm } from '../../blobs/blob-store';
import type { UpstreamBoxInfo, UpstreamCatalog, UpstreamProvider } from '../upstreams/catalog-schema';
import { selectVersions, type VersionSelection } from '../version-filter';

/** One provider file to fetch and publish. `url` is absolute (resolved against the catalog's URL). */
export interface PlannedProvider {
  name: string;
  architecture: string;
  default_architecture: boolean;
  url: string;
  checksum: string | null;
  checksum_type: DigestAlgorithm | null;
}
export interface PlannedVersion {
  version: string;
  description: string;
  providers: PlannedProvider[];
}
/** What the upstream says of the box beyond its catalog (its box API), which a mirror follows. */
export interface UpstreamMeta {
  short_description: string;
  description: string;
  /** Null: the upstream does not say. */
  private: boolean | null;
  /** Every version it shows, in any state (revoked ones too). */
  versions: Array<{ version: string; description: string; status: string }>;
}
export interface PlannedBox {
  /** "ORG/BOX" upstream and here. */
  source: string;
  target: string;
  short_description: string;
  description: string;
  versions: PlannedVersion[];
  /** Null: a catalog-only upstream (descriptions are set once, when the box is made). */
  upstream: UpstreamMeta | null;
}

export interface PlanFilter extends VersionSelection {
  providers: string[];
  architectures: string[];
}

const refuse = (box: string, what: string): never => {
  throw new UpstreamError(`The upstream catalog of ${box} ${what}; nothing was changed.`);
};

/** "ORG/BOX" with both parts valid local names: an upstream never names anything outside a box. */
export function checkedBoxName(name: string, what: string): { namespace: string; box: string } {
  const parts = name.split('/');
  if (parts.length !== 2 || !AccountName.safeParse(parts[0]).success || !BoxName.safeParse(parts[1]).success) {
    throw new UpstreamError(`${what} "${name}" is not a valid ORG/BOX name.`);
  }
  return { namespace: parts[0], box: parts[1] };
}

function plannedProvider(box: string, version: string, p: UpstreamProvider, base: string): PlannedProvider {
  if (!BoxName.safeParse(p.name).success) refuse(box, `names an invalid provider "${p.name}" in version ${version}`);
  const architecture = p.architecture ?? DEFAULT_ARCHITECTURE;
  if (!isArchitecture(architecture))
    refuse(box, `names an unknown architecture "${architecture}" in version ${version}`);
  let url: string;
  try {
    url = new URL(p.url, base).toString();
  } catch {
    return refuse(box, `has a provider url "${p.url}" that is not a URL in version ${version}`);
  }
  // Vagrant Cloud writes "NONE" or "" where there is no checksum.
  const type = p.checksum_type && p.checksum_type.toLowerCase() !== 'none' ? p.checksum_type : null;
  let sum: ReturnType<typeof normalizeChecksum>;
  try {
    sum = normalizeChecksum(type ? (p.checksum ?? null) : null, type);
  } catch (e) {
    return refuse(
      box,
      `has an invalid checksum for ${p.name} in version ${version} (${e instanceof AppError ? e.message : String(e)})`,
    );
  }
  return { name: p.name, architecture, default_architecture: p.default_architecture ?? false, url, ...sum };
}

/** The box API's Markdown (Vagrant Cloud's `description_markdown`; an export's `description`). */
const markdown = (o: { description_markdown?: string | null; description?: string | null }) =>
  o.description_markdown ?? o.description ?? '';

/** What a mirror takes from the upstream's box API; versions that are not Ruby Gem versions are left out. */
export function upstreamMeta(info: UpstreamBoxInfo): UpstreamMeta {
  return {
    short_description: info.short_description ?? '',
    description: markdown(info),
    private: info.private ?? null,
    versions: (info.versions ?? [])
      .filter((v) => isGemVersion(v.version))
      .map((v) => ({ version: v.version, description: markdown(v), status: v.status ?? 'active' })),
  };
}

/**
 * Turns an upstream catalog into what a job fetches and publishes: released versions only,
 * filtered by version constraint or latest N, providers and architectures; versions the local box
 * already has are left out. Anything invalid refuses the whole box. Where the upstream has a box
 * API (`info`), descriptions come from it, as the box's owner wrote them.
 */
export function planBox(
  source: string,
  target: string,
  fetched: { catalog: UpstreamCatalog; base: string },
  filter: PlanFilter,
  existing: Set<string>,
  info: UpstreamBoxInfo | null = null,
): PlannedBox {
  const { catalog, base } = fetched;
  const meta = info ? upstreamMeta(info) : null;
  const released = catalog.versions.filter((v) => !v.status || v.status === 'active');
  for (const v of released)
    if (!isGemVersion(v.version)) refuse(source, `has a version "${v.version}" that is not a Ruby Gem version`);
  const chosen = new Set(
    selectVersions(
      released.map((v) => v.version),
      filter,
    ),
  );
  const versions: PlannedVersion[] = [];
  for (const v of released) {
    if (!chosen.has(v.version) || existing.has(v.version)) continue;
    const providers = v.providers
      .map((p) => plannedProvider(source, v.version, p, base))
      .filter(
        (p) =>
          (filter.providers.length === 0 || filter.providers.includes(p.name)) &&
          (filter.architectures.length === 0 || filter.architectures.includes(p.architecture)),
      );
    const keys = new Set(providers.map((p) => `${p.name}/${p.architecture}`));
    if (keys.size !== providers.length)
      refuse(source, `lists a provider twice for one architecture in version ${v.version}`);
    const described = meta?.versions.find((m) => m.version === v.version);
    if (providers.length)
      versions.push({ version: v.version, description: described?.description ?? markdown(v), providers });
  }
  return {
    source,
    target,
    short_description: meta?.short_description ?? catalog.short_description ?? '',
    // Catalogs (Boxyard's, vagrant's convention) fill `description` with the short one when there is no other.
    description:
      meta?.description ??
      (catalog.description && catalog.description !== catalog.short_description ? catalog.description : ''),
    versions,
    upstream: meta,
  };
}
