import { z } from 'zod';
import { ERROR_CODES } from '../error-codes';
import { JobJson, MirrorJson } from './mirror';

/**
 * The mirroring API's actions beside its resources (under /api/boxyard; docs/mirroring.md):
 * an upstream's connection test, the pull-through cache's size and purge, the import of an export
 * folder and an export into a folder, both on the daemon's machine. Bodies and answers; the
 * daemon's routes parse the bodies with these, the web UI checks the answers. Pure (zod only).
 */

/** `GET` and `PATCH /mirrors/:id` (a schedule changed in the UI). */
export const MirrorAnswer = z.object({ mirror: MirrorJson });

/** `POST /upstreams/:id/test`: whether the upstream answered, and if not, the error's code. */
export const UpstreamTestJson = z.object({
  ok: z.boolean(),
  /** Null when ok. */
  code: z.enum(ERROR_CODES).nullable(),
  message: z.string(),
  tested_at: z.string(),
});
export type UpstreamTestJson = z.infer<typeof UpstreamTestJson>;
export const UpstreamTestAnswer = z.object({ test: UpstreamTestJson });

/** `GET /cache/size`: what the pull-through cache holds; a file shared by two providers counts once. */
export const CacheSizeJson = z.object({ boxes: z.number(), files: z.number(), bytes: z.number() });
export const CacheSizeAnswer = z.object({ cache: CacheSizeJson });
/** `DELETE /cache`: the boxes removed; their files go at the next garbage collection. */
export const CachePurgeAnswer = z.object({ purged: z.object({ boxes: z.array(z.string()), bytes: z.number() }) });

const FolderPath = z.string().min(1).max(4096);

/** `POST /import-folder`: a folder `boxyard export` wrote, on the daemon's machine. */
export const ImportFolderBody = z.object({ import: z.object({ path: FolderPath }) });
/** One mirror per box of the export (made or reused), each with the job that copies it. */
export const ImportFolderAnswer = z.object({
  mirrors: z.array(z.object({ id: z.string(), source: z.string(), job: JobJson })),
});

/**
 * `POST /export`: boxes (ORG/BOX) into a new or empty folder on the daemon's machine, or an earlier export of them
 * (resumed).
 */
export const ExportBody = z.object({
  export: z.object({
    boxes: z.array(z.string().min(3).max(200)).min(1).max(100),
    path: FolderPath,
    /** Only the newest N released versions of each box. */
    latest: z.number().int().min(1).max(10_000).optional(),
  }),
});
export type ExportRequest = z.infer<typeof ExportBody>['export'];

/**
 * The export's answer streams one JSON object a line (application/x-ndjson) as it goes: progress,
 * then `done` or `failed` last. A client that goes away stops the export; running it again resumes.
 */
export const ExportLine = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('progress'),
    bytes_done: z.number(),
    bytes_total: z.number(),
    files_done: z.number(),
    files_total: z.number(),
    file: z.string(),
  }),
  z.object({ type: z.literal('done'), path: z.string(), files: z.number(), bytes: z.number() }),
  z.object({ type: z.literal('failed'), code: z.enum(ERROR_CODES), message: z.string() }),
]);
export type ExportLine = z.infer<typeof ExportLine>;
