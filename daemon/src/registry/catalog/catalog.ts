import type { BoxDetail } from '../details';
import { isHeld, isUsable } from '../details';
import { downloadUrl } from '../serialize';
import type { Urls } from '../../http/urls';
import { advertisedChecksum } from '../providers/checksums';
import type { ProviderRow } from '../repository';

/**
 * vagrant ≤ 2.3 keeps the last catalog entry of each provider name and knows no architectures,
 * so it gets one entry per name: the default architecture. Absent or unknown agents get all.
 */
export function isLegacyVagrant(userAgent: string | undefined): boolean {
  const m = /\bVagrant\/(\d+)\.(\d+)/.exec(userAgent ?? '');
  if (!m) return false;
  const [major, minor] = [Number(m[1]), Number(m[2])];
  return major < 2 || (major === 2 && minor <= 3);
}

/** For vagrant ≤ 2.3: of each name the default entry, or the oldest usable one when the default has no image yet. */
function onePerName(providers: ProviderRow[]): ProviderRow[] {
  const picked = new Map<string, ProviderRow>();
  for (const p of providers) {
    const seen = picked.get(p.name);
    if (!seen || (p.default_architecture === 1 && seen.default_architecture !== 1)) picked.set(p.name, p);
  }
  return [...picked.values()];
}

export interface CatalogOptions {
  /** vagrant ≤ 2.3: one entry per provider name. */
  legacy: boolean;
  /** The upstream cannot be reached (offline, or it failed just now): list only what is held here. */
  heldOnly?: boolean;
}

/**
 * The document `vagrant box add ORG/BOX` reads. `name` is what the client asked for (vagrant
 * compares it); `d` holds only released versions; providers without an image are left out, and
 * with `heldOnly` so are versions left with none.
 */
export function catalogDocument(requestedName: string, d: BoxDetail, urls: Urls, opts: CatalogOptions) {
  const { legacy } = opts;
  const served = (providers: ProviderRow[]) => {
    const usable = providers.filter((p) => isUsable(p) && (!opts.heldOnly || isHeld(p)));
    return legacy ? onePerName(usable) : usable;
  };
  return {
    name: requestedName,
    description: d.box.short_description || d.box.description,
    short_description: d.box.short_description,
    versions: d.versions
      .filter(({ providers }) => !opts.heldOnly || served(providers).length > 0)
      .map(({ version, providers }) => ({
        version: version.version,
        status: version.status,
        description_markdown: version.description,
        providers: served(providers).map((p) => ({
          name: p.name,
          url: downloadUrl(d.box, version, p, urls),
          ...advertisedChecksum(p),
          ...(legacy ? {} : { architecture: p.architecture, default_architecture: p.default_architecture === 1 }),
        })),
      })),
  };
}
