import Router from '@koa/router';
import { BOXYARD } from '../../http/route-table';
import type { Context } from 'koa';
import { z } from 'zod';
import { requireUser } from '../../auth/middleware';
import { Text } from '../../contract/bodies/registry';
import { queryValue, Segment } from '../../http/params';
import { validated } from '../../http/validate';
import type { ImportService } from './service';

export interface ImportRouteDeps {
  imports: ImportService;
}

/**
 * Paths whose body is a box file, never JSON: app.ts keeps its JSON body parser off them.
 * Case-insensitive like the router's matching.
 */
export const isImportPath = (path: string): boolean => /^\/api\/boxyard\/import\//i.test(path);

const ImportParams = z.object({ username: Segment, box: Segment, version: Segment });
const Flag = queryValue(z.enum(['true', 'false'], { message: 'must be true or false' }).optional());
const OptionalText = (max: number) => queryValue(Text(max).optional());
const ImportQuery = z.object({
  provider: OptionalText(64),
  architecture: OptionalText(32),
  checksum: OptionalText(256),
  checksum_type: OptionalText(16),
  release: Flag,
  private: Flag,
});

/** The body's announced size; a chunked body has none to check. */
function declaredSize(ctx: Context): number | undefined {
  if (ctx.get('transfer-encoding')) return undefined;
  const length = ctx.get('content-length');
  return length === '' ? undefined : Number(length);
}

/** `PUT /import/:username/:box/:version` with a raw `.box` body (docs/mirroring.md), under /api/boxyard. */
export function importRoutes(deps: ImportRouteDeps): Router {
  const r = new Router();
  r.put(
    BOXYARD.import.path,
    validated({ params: ImportParams, query: ImportQuery }, async (ctx, { params, query }) => {
      const p = requireUser(ctx);
      const request = { ...params, ...query, release: query.release === 'true', private: query.private !== 'false' };
      ctx.body = { import: await deps.imports.import(p, request, ctx.req, declaredSize(ctx)) };
    }),
  );
  return r;
}
