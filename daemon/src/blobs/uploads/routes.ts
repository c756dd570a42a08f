import Router from '@koa/router';
import { z } from 'zod';
import { validated } from '../../http/validate';
import { ROOT } from '../../http/route-table';
import type { UploadService } from './service';

// No length limit: any unknown secret is simply not found (404), never a validation error.
const UploadParams = z.object({ secret: z.string().min(1) });

/**
 * The PUT of an upload URL: streams the body into the session's upload and answers exactly 200. No JSON body parser
 * ever reads it (Packer's vagrant-cloud sends the box file as `Content-Type: application/json`: app.ts's `rawBody`).
 * The secret in the path is the capability: no token. Chunked bodies have no Content-Length to check.
 */
export const receiveUpload = (uploads: UploadService) =>
  validated({ params: UploadParams }, async (ctx, { params }) => {
    const declared = ctx.get('transfer-encoding') ? undefined : ctx.get('content-length');
    // The daemon leaves `Expect: 100-continue` to this route (http/guards/connections.ts): invite the body only now.
    const accept = () => {
      if (/100-continue/i.test(ctx.get('expect'))) ctx.res.writeContinue();
    };
    await uploads.receive(params.secret, ctx.req, declared ? Number(declared) : undefined, accept);
    ctx.status = 200;
    ctx.body = { success: true };
  });

/** The upload PUT target of the Vagrant Cloud API, outside /api (HCP's: registry/hcp/architecture-routes.ts). */
export function uploadPutRoutes(deps: { uploads: UploadService }): Router {
  const r = new Router();
  r.put(ROOT.uploadTarget.path, receiveUpload(deps.uploads));
  return r;
}
