import { ARCHITECTURES, type Architecture, isArchitecture } from './bodies/registry';
import { PathName } from './names';

/**
 * What a `.box` says about itself, the one owner of that reading: a `.box` is a tar (maybe gzipped)
 * whose top-level `metadata.json` names its `provider` and, in boxes made since vagrant 2.4, its
 * `architecture`. The daemon's import (mirror/import/box-metadata.ts) and the web UI's file reader
 * (renderer/src/api/box-file.ts) each walk the tar their own way (a stream there, a browser's
 * File here) and hand the bytes of metadata.json to `parseBoxMetadata`; the refusals and the
 * architecture of a box that names none are decided here only. Pure (zod only).
 */

/** A real metadata.json is a few hundred bytes; a hostile one must not fill memory. */
export const MAX_METADATA_BYTES = 64 * 1024;

/**
 * The architecture of a box whose metadata.json names none: boxes made before vagrant 2.4 wrote
 * the key, nearly all of them for amd64 machines. The file form preselects it (and says the file did
 * not say) and the import takes it, so one file becomes the same provider either way.
 */
export const UNSTATED_ARCHITECTURE: Architecture = 'amd64';

/** What metadata.json says (only the keys Boxyard uses), as strings not yet checked. */
export interface BoxMetadata {
  provider?: string;
  architecture?: string;
}

/** Words that finish "The file cannot be read: …". */
export const BOX_FILE_WORDS = {
  notTar: 'it is not a .box file (a tar or gzipped tar)',
  noMetadata: 'it holds no metadata.json at its top level',
  tooLarge: `its metadata.json is larger than ${MAX_METADATA_BYTES / 1024} KiB, which no real box's is`,
  notJson: 'its metadata.json is not valid JSON',
  notObject: 'its metadata.json is not a JSON object',
} as const;

/** The file is not a readable box: not a (gzipped) tar, no metadata.json, too large or not a JSON object. */
export class BoxMetadataError extends Error {
  constructor(reason: string) {
    super(`The file cannot be read: ${reason}.`);
    this.name = 'BoxMetadataError';
  }
}

/** metadata.json's bytes → what it says; throws BoxMetadataError. Keys of another type than string are ignored. */
export function parseBoxMetadata(bytes: Uint8Array): BoxMetadata {
  if (bytes.length > MAX_METADATA_BYTES) throw new BoxMetadataError(BOX_FILE_WORDS.tooLarge);
  let doc: unknown;
  try {
    doc = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw new BoxMetadataError(BOX_FILE_WORDS.notJson);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    throw new BoxMetadataError(BOX_FILE_WORDS.notObject);
  const { provider, architecture } = doc as Record<string, unknown>;
  return {
    ...(typeof provider === 'string' ? { provider } : {}),
    ...(typeof architecture === 'string' ? { architecture } : {}),
  };
}

/** A value from the file as it may be shown: a hostile one may be 60 KiB long. */
const shown = (value: string): string => JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);

const ProviderName = PathName('a provider name');

/** Why the provider metadata.json names is refused, or null when it is a valid provider name. */
export function providerRefusal(provider: string): string | null {
  const r = ProviderName.safeParse(provider);
  if (r.success) return null;
  return `The file's metadata.json names the provider ${shown(provider)}, which is refused: ${r.error.issues[0]?.message}.`;
}

/** Why the architecture metadata.json names is refused, or null when vagrant knows it. */
export function architectureRefusal(architecture: string): string | null {
  if (isArchitecture(architecture)) return null;
  return `The file's metadata.json names the architecture ${shown(architecture)}, which vagrant does not know (it knows ${ARCHITECTURES.join(', ')}).`;
}

/** The architecture a checked metadata.json gives its box: its own, else UNSTATED_ARCHITECTURE. */
export const architectureOf = (meta: BoxMetadata): Architecture =>
  meta.architecture !== undefined && isArchitecture(meta.architecture) ? meta.architecture : UNSTATED_ARCHITECTURE;
