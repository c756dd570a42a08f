import type { Context } from 'koa';
import { Urls } from '../../http/urls';
import { NotFoundError } from '../../lib/errors';
import type { RegistryRouteDeps } from '../route-helpers';
import type { VersionResult } from '../versions/service';
import type { UploadService } from '../../blobs/uploads/service';

/** What HCP's registry routes share: their services, and the path's names as the registry's services take them. */
export type HcpRouteDeps = RegistryRouteDeps & { uploads: UploadService };

export const boxRef = (p: { registry: string; box: string }) => ({ username: p.registry, box: p.box });
export const versionRef = (p: { registry: string; box: string; version: string }) => ({
  ...boxRef(p),
  version: p.version,
});
export const urlsOf = (ctx: Context, deps: RegistryRouteDeps) => Urls.of(ctx, deps.config.publicUrl);

/** The entries of one provider name in a version the caller sees (404 when there is none). */
export function entriesOf(v: VersionResult, name: string) {
  const entries = v.version.providers.filter((p) => p.name === name);
  if (entries.length === 0) {
    throw new NotFoundError(
      `Version "${v.version.version.version}" of "${v.box.username}/${v.box.name}" has no provider "${name}".`,
    );
  }
  return entries;
}
