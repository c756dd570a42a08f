import Router from '@koa/router';
import { z } from 'zod';
import { validated } from '../../http/validate';
import { ROOT } from '../../http/route-table';
import type { UploadService } from './service';

// No length limit: any unknown secret is simply not found (404), never a validation error.
const UploadParams = z.object({ secret: z.string().min(1) });

/**
 * The upload PUT target, outside /api so no JSON body parser ever reads it (Packer sends the box
 * file as `Content-Type: application/json`). The secret in the path is the capability: no token.
 * Chunked bodies have no Content-Length to check.
 */
export function uploadPutRoutes(deps: { uploads: UploadService }): Router {
  const r = new Router();
  r.put(
    ROOT.uploadTarget.path,
    validated({ params: UploadParams }, async (ctx, { params }) => {
      const declared = ctx.get('transfer-encoding') ? undefined : ctx.get('content-length');
      // The daemon leaves `Expect: 100-continue` to this route (main.ts): invite the body only now.
      const accept = () => {
        if (/100-continue/i.test(ctx.get('expect'))) ctx.res.writeContinue();
      };
      await deps.uploads.receive(params.secret, ctx.req, declared ? Number(declared) : undefined, accept);
      ctx.status = 200;
      ctx.body = { success: true };
    }),
  );
  return r;
}
