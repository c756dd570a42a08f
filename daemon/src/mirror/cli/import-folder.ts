import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { describeIssues } from '../../http/validate';
import { ExportManifest, MANIFEST_FILE, UpstreamCatalog } from '../upstreams/catalog-schema';
import { hashFile, inside, manifestPath } from './files';
import type { Meter } from './meter';

/** Boxyard's export also records whether the box was private (other catalogs do not say). */
const ExportedCatalog = UpstreamCatalog.extend({ private: z.boolean().nullish() });
type ExportedCatalog = z.infer<typeof ExportedCatalog>;

/** One file of an export, with where it goes. */
export interface ExportedFile {
  path: string;
  /** As the manifest names it. */
  rel: string;
  size: number;
  sha256: string;
  box: string;
  version: string;
  provider: string;
  architecture?: string;
}

export interface ExportedBox {
  /** ORG/BOX to import into. */
  name: string;
  catalog: ExportedCatalog;
}

export interface ExportFolder {
  boxes: ExportedBox[];
  files: ExportedFile[];
}

export const isExportFolder = (dir: string): boolean => existsSync(join(dir, MANIFEST_FILE));

class CorruptExport extends Error {
  constructor(dir: string, what: string) {
    super(`${dir} is not a usable export: ${what}. Nothing was imported; export it again.`);
  }
}

async function readJson<T extends z.ZodType>(dir: string, path: string, schema: T): Promise<z.output<T>> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(path, 'utf8'));
  } catch (err) {
    throw new CorruptExport(dir, `${manifestPath(dir, path)} cannot be read as JSON (${(err as Error).message})`);
  }
  const r = schema.safeParse(raw);
  if (!r.success)
    throw new CorruptExport(
      dir,
      `${manifestPath(dir, path)} is not what boxyard export writes: ${describeIssues(r.error)}`,
    );
  return r.data;
}

const isBoxName = (name: string): boolean => /^[^/]+\/[^/]+$/.test(name);

/** Every provider of a box's catalog, as a file of the manifest. */
function filesOf(dir: string, box: ExportedBox, catalogPath: string, manifest: ExportManifest): ExportedFile[] {
  const listed = new Map(manifest.files.map((f) => [f.path, f]));
  return box.catalog.versions.flatMap((v) =>
    v.providers.map((p) => {
      const path = inside(dir, join(dirname(catalogPath), p.url));
      if (!path) throw new CorruptExport(dir, `${box.name} ${v.version} ${p.name} names ${p.url}, outside the export`);
      const entry = listed.get(manifestPath(dir, path));
      if (!entry)
        throw new CorruptExport(
          dir,
          `${manifestPath(dir, path)} (${box.name} ${v.version} ${p.name}) is not in ${MANIFEST_FILE}`,
        );
      return {
        path,
        rel: entry.path,
        size: entry.size,
        sha256: entry.sha256,
        box: box.name,
        version: v.version,
        provider: p.name,
        architecture: p.architecture ?? undefined,
      };
    }),
  );
}

/**
 * Reads a folder written by `boxyard export`: its manifest and each box's catalog. `as` renames
 * the box of an export that holds one.
 */
export async function readExportFolder(dir: string, as?: string): Promise<ExportFolder> {
  const manifest = await readJson(dir, join(dir, MANIFEST_FILE), ExportManifest);
  if (as && manifest.boxes.length !== 1) {
    throw new Error(
      `--as renames the box of an export that holds one; ${dir} holds ${manifest.boxes.length} (${manifest.boxes.map((b) => b.name).join(', ')}).`,
    );
  }
  const boxes: ExportedBox[] = [];
  const files: ExportedFile[] = [];
  for (const entry of manifest.boxes) {
    const name = as ?? entry.name;
    if (!isBoxName(name)) throw new CorruptExport(dir, `"${name}" is not a box name (ORG/BOX)`);
    const catalogPath = inside(dir, entry.catalog);
    if (!catalogPath) throw new CorruptExport(dir, `the catalog of ${entry.name} is outside the export`);
    const box = { name, catalog: await readJson(dir, catalogPath, ExportedCatalog) };
    boxes.push(box);
    files.push(...filesOf(dir, box, catalogPath, manifest));
  }
  return { boxes, files };
}

/** Checks every file's size and sha256 against the manifest before anything is sent. */
export async function verifyExport(dir: string, files: ExportedFile[], meter: Meter): Promise<void> {
  const total = files.reduce((n, f) => n + f.size, 0);
  let done = 0;
  for (const [i, f] of files.entries()) {
    const label = `verifying ${f.rel}`;
    const s = await stat(f.path).catch(() => null);
    if (!s?.isFile()) throw new CorruptExport(dir, `${f.rel} is missing`);
    if (s.size !== f.size) throw new CorruptExport(dir, `${f.rel} holds ${s.size} bytes, the manifest says ${f.size}`);
    const { digests } = await hashFile(f.path, ['sha256'], (n) => {
      done += n;
      meter.update({ bytesDone: done, bytesTotal: total, filesDone: i, filesTotal: files.length, label });
    });
    if (digests.sha256 !== f.sha256)
      throw new CorruptExport(dir, `${f.rel} has sha256 ${digests.sha256}, the manifest says ${f.sha256}`);
    meter.update({ bytesDone: done, bytesTotal: total, filesDone: i + 1, filesTotal: files.length, label });
  }
}
