import Router from '@koa/router';
import { PassThrough } from 'node:stream';
import type { Logger } from 'pino';
import { z } from 'zod';
import { requireUser } from '../../auth/middleware';
import type { ErrorCode } from '../../contract/error-codes';
import { ExportBody, ImportFolderBody, type ExportLine } from '../../contract/wire/mirror-actions';
import { BOXYARD } from '../../http/route-table';
import { queryValue } from '../../http/params';
import { validated } from '../../http/validate';
import { AppError } from '../../lib/errors';
import type { CacheAdmin } from '../cache/admin';
import type { JobRow } from '../repository';
import type { UpstreamProbe } from '../upstreams/probe';
import { IdParams } from '../schemas';
import type { FolderExport } from './export-folder';
import type { FolderImport } from './import-folder';

export interface MirrorActionDeps {
  probe: UpstreamProbe;
  cacheAdmin: CacheAdmin;
  folderImport: FolderImport;
  folderExport: FolderExport;
  log: Logger;
}

const PurgeQuery = z.object({ box: queryValue(z.string().min(3).max(200).optional()) });

/** What a failure mid-export says on the stream: its code (a full disk has its own) and message. */
function failure(err: unknown): { code: ErrorCode; message: string } {
  if (err instanceof AppError) return { code: err.code, message: err.message };
  const errno = (err as NodeJS.ErrnoException).code;
  if (errno === 'ENOSPC')
    return {
      code: 'insufficient_storage',
      message: 'The disk of the export folder is full. Free space and export again: it resumes.',
    };
  return { code: 'internal', message: `The export stopped: ${(err as Error).message}. Export again to resume.` };
}

/**
 * The mirroring API's actions (docs/mirroring.md), under /api/boxyard: an upstream's
 * connection test, the cache's size and purge, and the daemon-side import and export of folders.
 */
export function mirrorActionRoutes(deps: MirrorActionDeps, job: (j: JobRow) => unknown): Router {
  const r = new Router();
  r.post(
    BOXYARD.upstreamTest.path,
    validated({ params: IdParams }, async (ctx, { params }) => {
      ctx.body = { test: await deps.probe.test(requireUser(ctx), params.id) };
    }),
  );
  r.get(BOXYARD.cacheSize.path, async (ctx) => {
    requireUser(ctx);
    ctx.body = { cache: await deps.cacheAdmin.size() };
  });
  r.delete(
    BOXYARD.cache.path,
    validated({ query: PurgeQuery }, async (ctx, { query }) => {
      ctx.body = { purged: await deps.cacheAdmin.purge(requireUser(ctx), query.box) };
    }),
  );
  r.post(
    BOXYARD.importFolder.path,
    validated({ body: ImportFolderBody }, async (ctx, { body }) => {
      const started = await deps.folderImport.run(requireUser(ctx), body.import.path);
      ctx.status = 201;
      ctx.body = { mirrors: started.map((s) => ({ id: s.mirror.id, source: s.mirror.source, job: job(s.job) })) };
    }),
  );
  r.post(
    BOXYARD.exportFolder.path,
    validated({ body: ExportBody }, async (ctx, { body }) => {
      // Planned (and refused) before the answer starts; then the answer streams as the files are written.
      const plan = await deps.folderExport.plan(requireUser(ctx), body.export);
      const out = new PassThrough();
      const stop = new AbortController();
      const send = (line: ExportLine) => out.write(`${JSON.stringify(line)}\n`);
      ctx.res.once('close', () => {
        if (!ctx.res.writableFinished) stop.abort();
      });
      ctx.type = 'application/x-ndjson';
      ctx.body = out;
      void deps.folderExport
        .write(plan, send, stop.signal)
        .then(() =>
          send({
            type: 'done',
            path: plan.dir,
            files: plan.files.length,
            bytes: plan.files.reduce((n, f) => n + f.size, 0),
          }),
        )
        .catch((err: unknown) => {
          if (stop.signal.aborted) return;
          deps.log.warn({ err, path: plan.dir }, 'export into a folder failed');
          send({ type: 'failed', ...failure(err) });
        })
        .finally(() => out.end());
    }),
  );
  return r;
}
