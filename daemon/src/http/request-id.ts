import { randomUUID } from 'node:crypto';
import type { Context } from 'koa';

const GIVEN = /^[\w.-]{1,128}$/;

/** Echoes the client's X-Request-Id (vagrant_cloud sends one) when it is well-formed. */
export function echoRequestId(ctx: Context): void {
  const given = ctx.get('x-request-id');
  if (given === '' || !GIVEN.test(given)) return;
  ctx.state.requestId = given;
  ctx.set('X-Request-Id', given);
}

/**
 * The request's id, for a log line and the answer that names it: the client's, else one made now
 * (and sent back). Only failures need one, so a request that succeeds pays for no id.
 */
export function requestIdOf(ctx: Context): string {
  if (!ctx.state.requestId) {
    ctx.state.requestId = randomUUID();
    ctx.set('X-Request-Id', ctx.state.requestId);
  }
  return ctx.state.requestId;
}
