import type { Context, Middleware } from 'koa';
import type { IncomingMessage } from 'node:http';
import { BadRequestError, PayloadTooLargeError, RequestTimeoutError } from '../lib/errors';

declare module 'koa' {
  interface Request {
    /** The parsed JSON body: always an object ({} for an empty body). */
    body?: Record<string, unknown>;
  }
}

const METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The body's chunks, at most `limit` bytes, all arrived within `deadlineMs` of the first read:
 * a body trickled a byte every few seconds (slowloris) gets a 408 instead of holding the
 * request forever. Uploads and imports never come here: they only have the idle timeout.
 */
function readWithin(req: IncomingMessage, limit: number, deadlineMs: number): Promise<Buffer[]> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (err?: unknown) => {
      clearTimeout(timer);
      req.off('data', onData).off('end', onEnd).off('error', done).off('close', onClose);
      if (!err) return resolve(chunks);
      // Whatever still comes is not read: the answer (413 or 408) closes the connection.
      req.pause();
      reject(err);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) done(new PayloadTooLargeError(`Request body is larger than ${limit} bytes.`));
      else chunks.push(chunk);
    };
    const onEnd = () => done();
    // 'close' before 'end': the client went away mid-body.
    const onClose = () => done(new BadRequestError('The connection closed before the whole request body arrived.'));
    const timer = setTimeout(
      () =>
        done(
          new RequestTimeoutError(
            `The request body did not arrive within ${deadlineMs / 1000} seconds. Send it at once, and retry.`,
          ),
        ),
      deadlineMs,
    );
    req.on('data', onData).on('end', onEnd).on('error', done).on('close', onClose);
  });
}

/**
 * The body of a request that arrived whole before anyone read it, as a small body does with its
 * headers (an agent's report, most API calls): taken from the stream's buffer at once, without
 * the listeners and deadline timer that waiting for it needs.
 */
function arrived(req: IncomingMessage, limit: number): Buffer {
  if (req.readableLength > limit) throw new PayloadTooLargeError(`Request body is larger than ${limit} bytes.`);
  return (req.read() as Buffer | null) ?? Buffer.alloc(0);
}

/** A small body as text (UTF-8): at most `limit` bytes, all arrived within `deadlineMs` (JSON, or OAuth2's form). */
export async function smallBody(ctx: Context, limit: number, deadlineMs: number): Promise<string> {
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > limit) throw new PayloadTooLargeError(`Request body is larger than ${limit} bytes.`);
  const chunks = ctx.req.complete ? [arrived(ctx.req, limit)] : await readWithin(ctx.req, limit, deadlineMs);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Reads a JSON body of at most `limit` bytes, whatever JSON-ish Content-Type was sent.
 * vagrant_cloud 3.0.5 sends `Content-Type: application/json` with empty bodies on PUT and DELETE,
 * so an empty body is `{}`. Never mount this on upload routes: Packer PUTs box files as JSON.
 */
export function jsonBody(limit = 1024 * 1024, deadlineMs = 30_000): Middleware {
  const read: Middleware = async (ctx, next) => {
    const text = (await smallBody(ctx, limit, deadlineMs)).trim();
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
