import type { Middleware } from 'koa';
import type { Logger } from 'pino';

/**
 * One debug line per request once its answer is sent or cut off: method, URL, headers, status,
 * bytes and milliseconds. Mounted only when the log level is debug or finer (app.ts), so a daemon
 * at the default level pays nothing for it. Credentials in the URL and headers (an upload URL's
 * secret, `?access_token=`, `Authorization`…) are taken out by the logger (lib/log.ts).
 */
export function requestLog(log: Logger): Middleware {
  return (ctx, next) => {
    const started = process.hrtime.bigint();
    const { method, originalUrl: url, headers } = ctx;
    ctx.res.once('close', () => {
      log.debug(
        {
          req: { method, url, headers },
          res: { status: ctx.status, bytes: ctx.res.getHeader('content-length'), finished: ctx.res.writableFinished },
          ms: Number(process.hrtime.bigint() - started) / 1e6,
          requestId: ctx.state.requestId,
        },
        'request',
      );
    });
    return next();
  };
}
