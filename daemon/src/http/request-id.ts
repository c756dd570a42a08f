import { randomUUID } from 'node:crypto';
import type { Context } from 'koa';

const GIVEN = /^[\w.-]{1,128}$/;

/** Takes the client's X-Request-Id (vagrant_cloud sends one) or makes one, and echoes it. */
export function assignRequestId(ctx: Context): void {
  const given = ctx.get('x-request-id');
  ctx.state.requestId = GIVEN.test(given) ? given : randomUUID();
  ctx.set('X-Request-Id', ctx.state.requestId);
}
