import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { nameKey } from '../../contract/names';
import { MANIFEST_FILE, type ExportManifest } from '../upstreams/catalog-schema';
import { writeJsonAtomic } from '../cli/files';
import type { ExportBox, ExportFile } from './plan';

// The layout of an export folder, written alike by `boxyard export` (through the API) and by the
// daemon's own export (POST /api/boxyard/export, from its blob store).

/** Where a box's catalog goes in an export: `ORG/BOX/metadata.json`. */
export const catalogFile = (box: string) => `${box}/metadata.json`;
const sameBoxes = (a: string[], b: string[]) =>
  JSON.stringify(a.map(nameKey).sort()) === JSON.stringify(b.map(nameKey).sort());

/**
 * An export goes into an empty (or new) folder, or one holding an export of the same boxes,
 * which it then resumes: never over another export or unrelated files.
 */
export async function checkOut(dir: string, boxes: string[]): Promise<void> {
  const manifest = join(dir, MANIFEST_FILE);
  if (existsSync(manifest)) {
    const held =
      (JSON.parse(await readFile(manifest, 'utf8')) as Partial<ExportManifest>).boxes?.map((b) => b.name) ?? [];
    if (!sameBoxes(held, boxes)) {
      throw new Error(
        `${dir} already holds an export of ${held.join(', ') || 'other boxes'}. Choose another folder (exporting the same boxes into it again resumes that export).`,
      );
    }
    return;
  }
  const orgs = new Set(boxes.map((b) => b.split('/')[0]));
  const stray = (await readdir(dir).catch(() => [] as string[])).filter((n) => !orgs.has(n));
  if (stray.length)
    throw new Error(
      `${dir} is not empty (${stray.slice(0, 3).join(', ')}…) and holds no export. Choose an empty or new folder.`,
    );
}

/** The box's catalog as `vagrant box add` and a Boxyard upstream read it, with file URLs relative to it. */
export function catalogOf(box: ExportBox, sha256: Map<ExportFile, string>) {
  const digestOf = (f: ExportFile): string => {
    const digest = sha256.get(f);
    if (digest === undefined)
      throw new Error(
        `${f.box} ${f.version} ${f.file}: no sha256, though every file is hashed before its catalog is written.`,
      );
    return digest;
  };
  return {
    name: box.name,
    description: box.description,
    short_description: box.short_description,
    private: box.private,
    versions: box.versions.map((v) => ({
      version: v.version,
      status: 'active',
      description_markdown: v.description,
      providers: v.files.map((f) => ({
        name: f.provider,
        url: f.file,
        // The catalog's own checksum is kept; a file it had none for gets the one computed here.
        checksum: f.checksum ?? digestOf(f),
        checksum_type: f.checksum ? f.checksum_type : 'sha256',
        architecture: f.architecture,
        default_architecture: f.default_architecture,
      })),
    })),
  };
}

/**
 * Finishes an export whose files are all written (`written`: each file's sha256, and the manifest's entries): each
 * box's catalog, then the manifest, last, since a folder with a manifest is a complete export.
 */
export async function finishExport(
  dir: string,
  boxes: ExportBox[],
  written: { sha256: Map<ExportFile, string>; entries: ExportManifest['files'] },
  createdAt: Date,
): Promise<void> {
  for (const b of boxes) await writeJsonAtomic(join(dir, catalogFile(b.name)), catalogOf(b, written.sha256));
  await writeJsonAtomic(join(dir, MANIFEST_FILE), {
    format: 'boxyard-export',
    format_version: 1,
    created_at: createdAt.toISOString(),
    boxes: boxes.map((b) => ({ name: b.name, catalog: catalogFile(b.name) })),
    files: written.entries,
  } satisfies ExportManifest);
}
