import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';

/** Takes the client's X-Request-Id (vagrant_cloud sends one) or makes one, and echoes it. */
export function requestId(): Middleware {
  return async (ctx, next) => {
    const given = ctx.get('x-request-id');
    ctx.state.requestId = /^[\w.-]{1,128}$/.test(given) ? given : randomUUID();
    ctx.set('X-Request-Id', ctx.state.requestId);
    return next();
  };
}
