/**
 * What an export folder is written from: its boxes, their versions and each provider's file. Planned by
 * `boxyard export` from a Boxyard's catalogs (mirror/cli/export-plan.ts) or by the daemon from its own registry
 * (mirror/actions/export-folder.ts); written in the layout of ./layout.ts.
 */
import { isGemVersion } from '../../contract/names';
import { BoxName } from '../../contract/bodies/registry';

/** One provider's file, where it comes from and where it goes. */
export interface ExportFile {
  box: string;
  version: string;
  provider: string;
  architecture: string;
  default_architecture: boolean;
  url: string;
  checksum: string | null;
  checksum_type: string | null;
  /** From HEAD; null when the server did not say. */
  size: number | null;
  /** Relative to the box's folder (ORG/BOX), as its metadata.json names it. */
  file: string;
}

export interface ExportBox {
  name: string;
  description: string;
  short_description: string;
  private: boolean;
  versions: Array<{ version: string; description: string; files: ExportFile[] }>;
}

/** `ORG/BOX` or `ORG/BOX@VERSION`; the names become folder names, so they are checked like local ones. */
export function parseBoxSpec(spec: string): { org: string; box: string; version: string | null } {
  const m = /^([^/@]+)\/([^/@]+)(?:@(.+))?$/.exec(spec);
  if (!m || !BoxName.safeParse(m[1]).success || !BoxName.safeParse(m[2]).success) {
    throw new Error(`"${spec}" is not a box: write ORG/BOX or ORG/BOX@VERSION.`);
  }
  if (m[3] !== undefined && !isGemVersion(m[3]))
    throw new Error(`"${m[3]}" in ${spec} is not a version such as 1.0.0.`);
  return { org: m[1], box: m[2], version: m[3] ?? null };
}

/** Every file of the boxes, box by box and version by version. */
export const filesOf = (boxes: ExportBox[]): ExportFile[] => boxes.flatMap((b) => b.versions.flatMap((v) => v.files));
