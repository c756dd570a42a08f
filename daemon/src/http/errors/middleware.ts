import type { Context, Middleware } from 'koa';
import type { Logger } from 'pino';
import { ZodError } from 'zod';
import { AppError, InternalError, MethodNotAllowedError, NotFoundError, ValidationError } from '../../lib/errors';
import { render, titleFor, type Dialect } from './dialects';
import { echoRequestId, requestIdOf } from '../request-id';
import { damagedDatabaseError, diskFullError } from '../../store/storage-errors';

/** The dialect of the mount that answers (or would answer) a request: app.ts's route table. */
export type DialectOf = (ctx: Context) => Dialect;

/**
 * Outermost middleware: echoes the client's request id, turns thrown errors into the dialect of
 * the mount the request went to (`dialectOf`), answers unmatched routes 404, and logs unknown
 * errors once with the request id (their details never reach the client).
 */
/** A check every request passes first; 'answered' when it answered the request itself (nothing else runs). */
export type RequestCheck = (ctx: Context) => 'answered' | undefined;

export function errorMiddleware(log: Logger, dialectOf: DialectOf, checks: readonly RequestCheck[] = []): Middleware {
  return async (ctx, next) => {
    echoRequestId(ctx);
    try {
      // Checks every request passes first (the Host), whose refusals are rendered here: plain
      // calls rather than middleware frames of their own.
      for (const check of checks) if (check(ctx) === 'answered') return;
      await next();
      // The router answers unknown paths and unserved methods with a bare status: give them a body in the mount's
      // dialect.
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new NotFoundError(`No route for ${ctx.method} ${ctx.path}. Check the URL and the API version.`);
      }
      if ((ctx.status === 405 || ctx.status === 501) && !ctx.body) {
        throw new MethodNotAllowedError(
          `${ctx.method} is not supported on ${ctx.path}; the Allow header lists the methods that are.`,
        );
      }
    } catch (raw) {
      let err = knownError(raw);
      if (!err) {
        const requestId = requestIdOf(ctx);
        log.error({ err: raw, requestId, path: ctx.path }, 'unhandled error');
        err =
          damagedDatabaseError(raw) ??
          new InternalError(`Internal server error (request id ${requestId}). The daemon log has the details.`);
      }
      // A full disk is the administrator's to fix, not a bug: a warning in the log, a 507 that says so.
      if (err.code === 'insufficient_storage')
        log.warn({ path: ctx.path, detail: err.message }, 'refused for want of disk space');
      const r = render(err, dialectOf(ctx));
      for (const name in r.headers) ctx.set(name, r.headers[name]);
      ctx.status = r.status;
      ctx.type = r.type;
      ctx.body = ctx.method === 'HEAD' ? null : r.body;
    }
  };
}

/** The error the client is told of as it is (or as its code says), or undefined for one it is not. */
function knownError(raw: unknown): AppError | undefined {
  if (raw instanceof AppError) return raw;
  if (raw instanceof ZodError) return new ValidationError(raw.issues.map((i) => i.message).join('; '));
  if (isHttpError(raw)) return fromHttpError(raw);
  return diskFullError(raw);
}

interface HttpErrorLike {
  status: number;
  expose?: boolean;
  message: string;
}
function isHttpError(e: unknown): e is HttpErrorLike {
  return (
    typeof e === 'object' &&
    e !== null &&
    typeof (e as HttpErrorLike).status === 'number' &&
    (e as HttpErrorLike).status < 500
  );
}
function fromHttpError(e: HttpErrorLike): AppError {
  const code =
    e.status === 413
      ? 'payload_too_large'
      : e.status === 404
        ? 'not_found'
        : e.status === 401
          ? 'unauthorized'
          : 'bad_request';
  return new AppError(code, e.expose ? e.message : titleFor(code));
}
