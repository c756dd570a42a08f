import { createWriteStream } from 'node:fs';
import { mkdir, rename, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Principal } from '../../auth/accounts-service';
import type { BlobStore } from '../../blobs/blob-store';
import type { Clock } from '../../lib/clock';
import { ConflictError, ForbiddenError, ValidationError } from '../../lib/errors';
import type { RegistryService } from '../../registry/service';
import { sortByGemVersionDesc } from '../../registry/versions/gem-version';
import type { ExportLine, ExportRequest } from '../../contract/wire/mirror-actions';
import { hashFile } from '../cli/files';
import { filesOf, parseBoxSpec, type ExportBox, type ExportFile } from '../export/plan';
import { checkOut, finishExport } from '../export/layout';
import { MANIFEST_FILE, exportFileName, type ExportManifest } from '../upstreams/catalog-schema';

/** The ORG/BOX an export's box spec names; a spec that names none is the request's mistake. */
function boxNamed(spec: string): string {
  try {
    const ref = parseBoxSpec(spec);
    return `${ref.org}/${ref.box}`;
  } catch (err) {
    throw new ValidationError((err as Error).message, { field: 'export.boxes' });
  }
}

export interface ExportPlan {
  dir: string;
  boxes: ExportBox[];
  files: Array<ExportFile & { sha256: string; size: number }>;
}

/** Progress lines at most every this many bytes (and at each file's end). */
const REPORT_EVERY = 4 * 1024 * 1024;

/** Whether `path` already holds the blob (an export resumed): same size and sha256. */
async function holds(path: string, f: { size: number; sha256: string }): Promise<boolean> {
  const s = await stat(path).catch(() => null);
  if (!s?.isFile() || s.size !== f.size) return false;
  return (await hashFile(path)).digests.sha256 === f.sha256;
}

/**
 * `boxyard export` done by the daemon into a folder of its own machine, straight from its blob
 * store: the released versions (or the newest `latest`) of each box, with their stored files, the
 * catalogs and the manifest, in the layout `boxyard import` and folder upstreams read. Planned and
 * checked before anything is written; written file by file through a rename, so an interrupted
 * export resumes where it stopped. Administrators only: the daemon writes with its own rights.
 */
export class FolderExport {
  constructor(
    private readonly registry: Pick<RegistryService, 'box'>,
    private readonly blobs: BlobStore,
    private readonly clock: Clock,
  ) {}

  async plan(p: NonNullable<Principal>, req: ExportRequest): Promise<ExportPlan> {
    if (!p.user.is_admin)
      throw new ForbiddenError(
        "Only administrators may export into a folder on the daemon's machine; use boxyard export on yours.",
      );
    if (!isAbsolute(req.path))
      throw new ValidationError("path must be an absolute folder path on the daemon's machine.", {
        field: 'export.path',
      });
    const dir = resolve(req.path);
    const boxes: ExportBox[] = [];
    for (const spec of req.boxes) boxes.push(await this.exportBox(p, boxNamed(spec), req.latest));
    await checkOut(
      dir,
      boxes.map((b) => b.name),
    ).catch((err: Error) => {
      throw new ConflictError(err.message, { field: 'export.path' });
    });
    const files = filesOf(boxes) as ExportPlan['files'];
    return { dir, boxes, files };
  }

  private async exportBox(p: NonNullable<Principal>, name: string, latest: number | undefined): Promise<ExportBox> {
    const [username, box] = name.split('/');
    const detail = await this.registry.box(p, { username, box });
    const released = sortByGemVersionDesc(
      detail.versions.filter((v) => v.version.status === 'active'),
      (v) => v.version.version,
    );
    const versions = released
      .slice(0, latest ?? released.length)
      .map((v) => ({
        version: v.version.version,
        description: v.version.description,
        // Only the files stored here: a provider without a blob (an external URL, a file not cached yet) has none.
        files: v.providers.flatMap((pr) =>
          pr.blob_sha256 === null
            ? []
            : [
                {
                  box: name,
                  version: v.version.version,
                  provider: pr.name,
                  architecture: pr.architecture,
                  default_architecture: pr.default_architecture === 1,
                  url: '',
                  checksum: pr.checksum,
                  checksum_type: pr.checksum_type,
                  size: pr.size ?? 0,
                  sha256: pr.blob_sha256,
                  file: exportFileName(v.version.version, pr.name, pr.architecture),
                },
              ],
        ),
      }))
      .filter((v) => v.files.length > 0);
    if (!versions.length)
      throw new ValidationError(`${name} has no released version with a file stored here to export.`, {
        field: 'export.boxes',
      });
    const b = detail.box;
    return {
      name: `${b.username}/${b.name}`,
      description: b.description,
      short_description: b.short_description,
      private: b.private === 1,
      versions,
    };
  }

  /** Writes the plan, telling `emit` how far it got; `signal` stops it between reads (it resumes on a re-run). */
  async write(plan: ExportPlan, emit: (line: ExportLine) => void, signal: AbortSignal): Promise<void> {
    const total = plan.files.reduce((n, f) => n + f.size, 0);
    let done = 0;
    let reported = 0;
    const entries: ExportManifest['files'] = [];
    for (const [i, f] of plan.files.entries()) {
      const rel = `${f.box}/${f.file}`;
      const report = () => {
        reported = done;
        emit({
          type: 'progress',
          bytes_done: done,
          bytes_total: total,
          files_done: i,
          files_total: plan.files.length,
          file: rel,
        });
      };
      const path = join(plan.dir, rel);
      await mkdir(dirname(path), { recursive: true });
      if (!(await holds(path, f))) {
        const count = new Transform({
          transform(chunk: Buffer, _e, cb) {
            done += chunk.length;
            if (done - reported >= REPORT_EVERY) report();
            cb(null, chunk);
          },
        });
        const before = done;
        await pipeline(this.blobs.read(f.sha256), count, createWriteStream(`${path}.part`), { signal });
        done = before + f.size;
        await rename(`${path}.part`, path);
      } else {
        done += f.size;
      }
      entries.push({ path: rel, size: f.size, sha256: f.sha256 });
      report();
    }
    const sha256 = new Map<ExportFile, string>(plan.files.map((f) => [f, f.sha256]));
    await finishExport(plan.dir, plan.boxes, { sha256, entries }, this.clock.now());
    emit({
      type: 'progress',
      bytes_done: total,
      bytes_total: total,
      files_done: plan.files.length,
      files_total: plan.files.length,
      file: MANIFEST_FILE,
    });
  }
}
