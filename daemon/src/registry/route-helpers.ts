import type { Context } from 'koa';
import type { Principal } from '../auth/accounts-service';
import type { Config } from '../config';
import { Urls } from '../http/urls';
import { NotFoundError } from '../lib/errors';
import type { ProviderRef } from './access';
import type { RegistryService } from './service';
import type { Links } from './serialize';
import { isArchitecture } from '../contract/bodies/registry';

export interface RegistryRouteDeps {
  registry: RegistryService;
  config: Pick<Config, 'publicUrl'>;
}

/** The caller, or null for anonymous reads. */
export const caller = (ctx: Context): Principal => ctx.state.principal as Principal;

/** The API version of the request's path (gem ≥ 3.1 and Packer talk /api/v2). */
export const apiVersion = (ctx: Context): 'v1' | 'v2' => (ctx.path.startsWith('/api/v2/') ? 'v2' : 'v1');

/** Absolute links, those of the box API under the version this request used. */
export function linksFor(ctx: Context, config: Pick<Config, 'publicUrl'>): Links {
  return { urls: Urls.of(ctx, config.publicUrl), api: apiVersion(ctx) };
}

/** A provider named by the path: its architecture segment if any, and the API version that decides what none means. */
export function providerRefOf(
  ctx: Context,
  p: { username: string; name: string; version: string; provider: string; arch?: string },
): ProviderRef {
  return {
    username: p.username,
    box: p.name,
    version: p.version,
    provider: p.provider,
    architecture: p.arch,
    api: apiVersion(ctx),
  };
}

/**
 * `…/provider/:name/:arch` only for real architectures, so `…/provider/:name/upload` (the blobs
 * routes) can never be taken for an architecture called "upload".
 */
export function architectureParam(arch: string, _ctx: Context, next: () => Promise<unknown>) {
  if (!isArchitecture(arch))
    throw new NotFoundError(
      `"${arch}" is not an architecture. Use one of amd64, i386, arm, arm64, ppc64le, ppc64, mips64le, mips64, mipsle, mips, s390x, unknown.`,
    );
  return next();
}
