import type { Middleware } from 'koa';
import { BadRequestError, PayloadTooLargeError } from './errors';

declare module 'koa' {
  interface Request {
    /** The parsed JSON body: always an object ({} for an empty body). */
    body?: Record<string, unknown>;
  }
}

const METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Reads a JSON body of at most `limit` bytes, whatever JSON-ish Content-Type was sent.
 * vagrant_cloud 3.0.5 sends `Content-Type: application/json` with empty bodies on PUT and DELETE,
 * so an empty body is `{}`. Never mount this on upload routes: Packer PUTs box files as JSON.
 */
export function jsonBody(limit = 1024 * 1024): Middleware {
  const read: Middleware = async (ctx, next) => {
    const declared = Number(ctx.get('content-length') || 0);
    if (declared > limit) throw new PayloadTooLargeError(`Request body is larger than ${limit} bytes.`);
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of ctx.req) {
      size += (chunk as Buffer).length;
      if (size > limit) throw new PayloadTooLargeError(`Request body is larger than ${limit} bytes.`);
      chunks.push(chunk as Buffer);
    }
    const text = Buffer.concat(chunks).toString('utf8').trim();
    if (text === '') ctx.request.body = {};
    else {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new BadRequestError('Request body is not valid JSON. Send a JSON object.');
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
        throw new BadRequestError('Request body must be a JSON object.');
      }
      ctx.request.body = parsed as Record<string, unknown>;
    }
    return next();
  };
  return (ctx, next) => {
    if (METHODS.has(ctx.method)) return read(ctx, next);
    ctx.request.body = {};
    return next();
  };
}
