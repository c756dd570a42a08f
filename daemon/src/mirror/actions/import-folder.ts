import { isAbsolute, resolve } from 'node:path';
import type { Principal } from '../../auth/accounts-service';
import { nameKey } from '../../contract/names';
import { ConflictError, ForbiddenError, ValidationError } from '../../lib/errors';
import { isExportFolder, readExportFolder } from '../cli/import-folder';
import type { MirrorService } from '../mirrors-service';
import type { JobRow, MirrorRepository, MirrorRow } from '../repository';
import type { UpstreamService } from '../upstreams/service';

type Caller = NonNullable<Principal>;

/**
 * `boxyard import FOLDER` done by the daemon on a folder of its own machine: the folder becomes an
 * upstream and each box of its export a mirror (made once, run again on a later import), so the
 * files are copied by mirror jobs — checked against the export's checksums, resumable, with
 * progress and Cancel — and a newer export of the same boxes adds only what is new. Folder
 * upstreams are administrators' (the daemon reads them with its own rights).
 */
export class FolderImport {
  constructor(
    private readonly upstreams: UpstreamService,
    private readonly mirrors: MirrorService,
    private readonly repo: MirrorRepository,
  ) {}

  async run(p: Caller, path: string): Promise<Array<{ mirror: MirrorRow; job: JobRow }>> {
    if (!isAbsolute(path))
      throw new ValidationError("path must be an absolute folder path on the daemon's machine.", {
        field: 'import.path',
      });
    const dir = resolve(path);
    if (!p.user.is_admin)
      throw new ForbiddenError(
        "Only administrators may import a folder on the daemon's machine; use boxyard import on yours.",
      );
    if (!isExportFolder(dir))
      throw new ValidationError(`${dir} holds no boxyard-export.json: choose a folder written by boxyard export.`, {
        field: 'import.path',
      });
    const folder = await readExportFolder(dir).catch((err: Error) => {
      throw new ValidationError(err.message, { field: 'import.path' });
    });
    const upstream = await this.upstreams.byUrl(p, dir, undefined);
    const mine = (await this.mirrors.list(p)).filter((m) => m.upstream_id === upstream.id);
    const started = [];
    for (const box of folder.boxes) {
      const existing = mine.find((m) => nameKey(m.source) === nameKey(box.name));
      if (!existing) {
        // Visibility as the export's catalog says (the mirror follows its upstream).
        const { mirror, job } = await this.mirrors.create(p, { upstream_id: upstream.id, source: box.name, run: true });
        if (!job) throw new Error(`Mirror ${mirror.id} was made to run at once, yet no job was queued for it.`);
        started.push({ mirror, job });
        continue;
      }
      const active = await this.repo.activeJobOf(existing.id);
      started.push({ mirror: existing, job: active ?? (await this.runOrConflict(p, existing)) });
    }
    return started;
  }

  private async runOrConflict(p: Caller, m: MirrorRow): Promise<JobRow> {
    try {
      return await this.mirrors.run(p, m.id);
    } catch (err) {
      // A job started between the look and the run: that one copies the folder.
      if (err instanceof ConflictError) return (await this.repo.activeJobOf(m.id)) ?? Promise.reject(err);
      throw err;
    }
  }
}
