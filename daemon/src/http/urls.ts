import type { Context } from 'koa';
import { baseUrl } from './base-url';
import { MOUNTS, type Mount, type Route } from './route-table';

type Params<R> = R extends Route<infer T> ? Parameters<Route<T>['fill']>[0] : never;

/** A route's path under its mount, without the base: JSON:API `links` are such relative paths. */
export function pathTo<R extends Route>(mount: Mount, route: R, params: Params<R>): string {
  return MOUNTS[mount] + route.fill(params as never);
}

/**
 * Absolute URLs of this daemon, each built from the route table (`http/route-table.ts`) and the
 * base URL (the configured public URL, else the request's own: `base-url.ts`).
 */
export class Urls {
  constructor(readonly base: string) {}

  static of(ctx: Context, publicUrl: string | undefined): Urls {
    return new Urls(baseUrl(ctx, publicUrl));
  }

  /** A route of a mount, filled in. */
  to<R extends Route>(mount: Mount, route: R, params: Params<R>): string {
    return this.base + pathTo(mount, route, params);
  }
}
