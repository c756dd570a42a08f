import type { Context } from 'koa';
import type { TLSSocket } from 'node:tls';
import { HttpsRequiredError } from '../../lib/errors';
import type { RequestCheck } from '../errors/middleware';

export interface HttpsSettings {
  /** The HTTPS port the daemon listens on (known once it listens). */
  httpsPort(): number;
  /** `--public-url` when it is https: where to send clients, instead of the request's host. */
  publicUrl?: string;
  /** Publicly trusted certificate (ACME, the user's own): browsers are told to come back over HTTPS only. */
  hsts: boolean;
}

const isApi = (path: string) => path.startsWith('/api/');
const isPage = (path: string) => path === '/' || path === '/ui' || path.startsWith('/ui/');

/** Where the same request goes over HTTPS. */
function httpsUrl(ctx: Context, s: HttpsSettings): string {
  if (s.publicUrl?.startsWith('https://')) return s.publicUrl + ctx.url;
  const host = ctx.hostname.includes(':') ? `[${ctx.hostname}]` : ctx.hostname;
  const port = s.httpsPort();
  return `https://${host}${port === 443 ? '' : `:${port}`}${ctx.url}`;
}

/**
 * With TLS on, nothing is served over plain HTTP (issue 32). On the HTTPS port, a plain request
 * gets a short answer naming the https:// URL (the listener hands such connections to the same
 * HTTP server: tls/listener.ts); on `--http-port`, a browser's GET or HEAD is redirected. An API
 * request is never redirected, a POST that carries a token least of all: it gets an error in its
 * API's dialect, saying so. Runs after the Host check, before authentication.
 */
export function httpsGuard(s: HttpsSettings): RequestCheck {
  return (ctx) => {
    if ((ctx.req.socket as TLSSocket).encrypted) {
      if (s.hsts) ctx.res.setHeader('Strict-Transport-Security', 'max-age=31536000');
      return undefined;
    }
    const url = httpsUrl(ctx, s);
    // Nothing more is to cross this connection in clear.
    ctx.set('Connection', 'close');
    const onHttpPort = ctx.req.socket.localPort !== s.httpsPort();
    if (onHttpPort && !isApi(ctx.path) && (ctx.method === 'GET' || ctx.method === 'HEAD')) {
      ctx.status = 301;
      ctx.redirect(url);
      return 'answered';
    }
    if (isPage(ctx.path)) {
      ctx.status = 400;
      ctx.type = 'text/plain';
      ctx.body = `This Boxyard daemon speaks HTTPS. Open ${url}\n`;
      return 'answered';
    }
    throw new HttpsRequiredError(
      `This Boxyard daemon speaks HTTPS only: send the request to ${url}. Nothing was done. ` +
        'A token or password sent with this request crossed the network unencrypted: revoke or change it.',
    );
  };
}
