import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { describeIssues } from '../http/validate';
import { writeFileAtomically } from '../lib/private-files';

/** Written last into a backup folder: a folder without it is not a (complete) backup. */
export const BACKUP_MANIFEST = 'boxyard-backup.json';

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'a lower-case hex sha256');
/** The database, a blob at its content address, or a top-level key or settings file. */
const BackupPath = z
  .string()
  .refine(
    (p) => /^blobs\/sha256\/([0-9a-f]{2})\/\1[0-9a-f]{62}$/.test(p) || /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(p),
    'a path of a Boxyard data folder (blobs/sha256/ab/ab…, or a top-level file name)',
  );

export const BackupFile = z.object({ path: BackupPath, size: z.number().int().nonnegative(), sha256: Sha256 });
export type BackupFile = z.infer<typeof BackupFile>;

export const BackupManifest = z
  .object({
    format: z.literal('boxyard-backup'),
    format_version: z.literal(1),
    boxyard_version: z.string(),
    created_at: z.string(),
    /** Which of `files` is the SQLite database (the others are blobs and top-level files). */
    database: BackupPath,
    files: z.array(BackupFile),
  })
  .refine((m) => new Set(m.files.map((f) => f.path)).size === m.files.length, 'a path is listed twice')
  .refine((m) => m.files.some((f) => f.path === m.database), 'the database is not among the files');
export type BackupManifest = z.infer<typeof BackupManifest>;

/** A blob's path in a backup, as in a data folder (fs-blob-store.ts). */
export const blobEntry = (sha256: string): string => `blobs/sha256/${sha256.slice(0, 2)}/${sha256}`;
export const isBlobEntry = (path: string): boolean => path.startsWith('blobs/');

/** Writes the manifest owner-only, whole or not at all (lib/private-files.ts). */
export async function writeManifest(dir: string, manifest: BackupManifest): Promise<void> {
  await writeFileAtomically(join(dir, BACKUP_MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
}

/** The manifest of a backup folder, checked; a clear error when it is missing or not one. */
export async function readManifest(dir: string): Promise<BackupManifest> {
  const path = join(dir, BACKUP_MANIFEST);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    throw new Error(
      `${dir} is not a complete Boxyard backup: it has no ${BACKUP_MANIFEST} (a backup writes it last, so one that stopped half-way has none). Use another backup.`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`${path} is not valid JSON: the backup is damaged. Use another backup.`);
  }
  const parsed = BackupManifest.safeParse(json);
  if (!parsed.success)
    throw new Error(`${path} is not a Boxyard backup manifest (${describeIssues(parsed.error)}). Use another backup.`);
  return parsed.data;
}
