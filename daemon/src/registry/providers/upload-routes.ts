import Router from '@koa/router';
import { z } from 'zod';
import type { Config } from '../../config';
import { requirePublisher } from '../../auth/middleware';
import { validated } from '../../http/validate';
import { BOX, ROOT } from '../../http/route-table';
import { linksFor, providerRefOf } from '../route-helpers';
import { ProviderParams } from '../schemas';
import type { UploadKind } from '../../blobs/uploads/tables';
import type { UploadService } from '../../blobs/uploads/service';

export interface UploadRouteDeps {
  uploads: UploadService;
  config: Pick<Config, 'publicUrl'>;
}

const CallbackParams = ProviderParams.extend({ uploadId: z.string().max(128) });

/**
 * Upload preparation and the direct-upload callback, mounted under /api/v1 and /api/v2 before the
 * registry's routes (whose `…/provider/:name/:arch` would otherwise take `upload` for an
 * architecture). Packer's vagrant-cloud post-processor needs exactly 200 from each of them.
 */
export function uploadApiRoutes(deps: UploadRouteDeps): Router {
  const r = new Router();
  const prepare = (kind: UploadKind) =>
    validated({ params: ProviderParams }, async (ctx, { params }) => {
      const { secret, id } = await deps.uploads.prepare(requirePublisher(ctx), providerRefOf(ctx, params), kind);
      const { urls, api } = linksFor(ctx, deps.config);
      const upload_path = urls.to('root', ROOT.uploadTarget, { secret });
      if (kind === 'plain') {
        ctx.body = { upload_path };
        return;
      }
      const at = { ...params, uploadId: id };
      const callback =
        params.arch === undefined
          ? urls.to(api, BOX.uploadCallback, at)
          : urls.to(api, BOX.uploadCallbackArch, { ...at, arch: params.arch });
      ctx.body = { upload_path, callback };
    });
  const callback = validated({ params: CallbackParams }, async (ctx, { params }) => {
    await deps.uploads.finishDirect(requirePublisher(ctx), providerRefOf(ctx, params), params.uploadId);
    ctx.status = 200;
    ctx.body = { success: true };
  });
  for (const route of [BOX.upload, BOX.uploadArch]) r.get(route.path, prepare('plain'));
  for (const route of [BOX.uploadDirect, BOX.uploadDirectArch]) r.get(route.path, prepare('direct'));
  for (const route of [BOX.uploadCallback, BOX.uploadCallbackArch]) r.put(route.path, callback);
  return r;
}
