import Router from '@koa/router';
import { ROOT } from '../../http/route-table';
import type { Context } from 'koa';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { Principal } from '../../auth/accounts-service';
import type { Config } from '../../config';
import { NotFoundError } from '../../lib/errors';
import { Segment } from '../../http/params';
import { validated } from '../../http/validate';
import type { ProviderRef } from '../access';
import type { BlobRef, BlobStore } from '../../blobs/blob-store';
import { parseRange } from '../../blobs/downloads/byte-range';
import { isClientGone } from '../../blobs/downloads/send-range';
import type { RegistryService } from '../service';

export interface DownloadRouteDeps {
  registry: Pick<RegistryService, 'resolveProvider' | 'countDownload'>;
  blobStore: BlobStore;
  config: Pick<Config, 'blobsRedirect'>;
  log: Logger;
}

const DownloadParams = z.object({
  username: Segment,
  box: Segment,
  version: Segment,
  provider: Segment,
  arch: Segment,
});

/**
 * The stored file of a provider the caller may download (404 for anything missing or invisible,
 * and for a version not released unless they may manage the box), or its external url.
 */
async function locate(deps: DownloadRouteDeps, p: Principal, ref: ProviderRef & { architecture: string }) {
  const { box, provider } = await deps.registry.resolveProvider(p, ref, 'download');
  const blob = provider.blob_sha256 ? await deps.blobStore.stat(provider.blob_sha256) : null;
  if (!blob && provider.url) return { box, providerId: provider.id, redirect: provider.url, blob: null };
  if (!blob)
    throw new NotFoundError(
      `No box file has been uploaded for provider "${ref.provider}" (${ref.architecture}) of ${ref.username}/${ref.box} ${ref.version}.`,
    );
  return { box, providerId: provider.id, redirect: null, blob };
}

/** Counts a download once its response has gone out. */
function countOnFinish(ctx: Context, deps: DownloadRouteDeps, boxId: string, providerId: string): void {
  ctx.res.once('finish', () => {
    deps.registry
      .countDownload(boxId, providerId)
      .catch((err: unknown) => deps.log.error({ err }, 'counting a download failed'));
  });
}

/**
 * With --blobs-redirect on a store that has presigned URLs (S3): a whole-file GET is answered 302
 * to a URL valid 5 minutes, and counted as a download. HEAD and Range requests stay with the
 * daemon (a URL signed for GET answers no HEAD, and a resume must see the daemon's 206 or 416).
 */
async function redirected(
  ctx: Context,
  deps: DownloadRouteDeps,
  blob: BlobRef,
  boxId: string,
  providerId: string,
): Promise<boolean> {
  if (!deps.config.blobsRedirect || !deps.blobStore.downloadUrl || ctx.method !== 'GET' || ctx.get('range'))
    return false;
  const url = await deps.blobStore.downloadUrl(blob.sha256);
  // The URL expires: no cache may keep the redirect.
  ctx.set('Cache-Control', 'no-store');
  ctx.redirect(url);
  countOnFinish(ctx, deps, boxId, providerId);
  return true;
}

/** Streams the blob (or the requested range) and counts a download once its last byte is sent. */
async function send(
  ctx: Context,
  deps: DownloadRouteDeps,
  blob: BlobRef,
  boxId: string,
  providerId: string,
): Promise<void> {
  ctx.set('Accept-Ranges', 'bytes');
  ctx.set('ETag', `"${blob.sha256}"`);
  ctx.type = 'application/octet-stream';
  const req = parseRange(ctx.get('range') || undefined, blob.size);
  if (req.kind === 'unsatisfiable') {
    // curl --continue-at - (vagrant 2.3.4) asks past the end of a complete file: a protocol
    // answer, not an API error, so no error body.
    ctx.set('Content-Range', `bytes */${blob.size}`);
    ctx.status = 416;
    ctx.body = '';
    return;
  }
  const range = req.kind === 'partial' ? req.range : { start: 0, end: blob.size - 1 };
  ctx.status = req.kind === 'partial' ? 206 : 200;
  if (req.kind === 'partial') ctx.set('Content-Range', `bytes ${range.start}-${range.end}/${blob.size}`);
  if (ctx.method === 'HEAD' || blob.size === 0) {
    ctx.length = blob.size === 0 ? 0 : range.end - range.start + 1;
    if (blob.size === 0 && ctx.method !== 'HEAD') ctx.body = '';
    return;
  }
  ctx.length = range.end - range.start + 1;
  if (range.end === blob.size - 1) countOnFinish(ctx, deps, boxId, providerId);
  // The status and headers are on the response already; the blob store writes the body.
  ctx.respond = false;
  try {
    await deps.blobStore.send(blob.sha256, range, ctx.res);
  } catch (err) {
    // A client that stops a download (Ctrl-C, a lost link, curl's retry) is normal: one quiet
    // line without a stack, whether or not the headers had gone out.
    if (isClientGone(err, ctx.res)) {
      deps.log.debug({ path: ctx.path, reason: (err as Error).message }, 'download ended early: the client went away');
      ctx.res.destroy();
      return;
    }
    // Nothing sent yet (the file could not be opened): an error answer as usual.
    if (!ctx.res.headersSent) {
      ctx.respond = true;
      throw err;
    }
    deps.log.warn({ err, path: ctx.path }, 'download failed after its headers were sent');
    ctx.res.destroy();
  }
}

/**
 * Hosted box files at vagrantcloud's familiar layout. Private boxes need a token (any transport;
 * vagrant sends Bearer only when the host equals VAGRANT_SERVER_URL's) and answer 404 otherwise;
 * so do the files of unreleased and revoked versions, to anyone who may not manage the box.
 */
export function downloadRoutes(deps: DownloadRouteDeps): Router {
  const r = new Router();
  const handler = validated({ params: DownloadParams }, async (ctx, { params }) => {
    const ref = {
      username: params.username,
      box: params.box,
      version: params.version,
      provider: params.provider,
      architecture: params.arch,
    };
    const found = await locate(deps, ctx.state.principal as Principal, ref);
    if (!found.blob) return ctx.redirect(found.redirect);
    if (!(await redirected(ctx, deps, found.blob, found.box.id, found.providerId)))
      await send(ctx, deps, found.blob, found.box.id, found.providerId);
  });
  // @koa/router answers HEAD with the GET route; the handler then sends headers only.
  r.get(ROOT.download.path, handler);
  return r;
}
