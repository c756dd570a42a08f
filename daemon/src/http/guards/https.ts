import type { Context } from 'koa';
import type { TLSSocket } from 'node:tls';
import { HttpsRequiredError } from '../../lib/errors';
import { urlHost } from '../../lib/host-names';
import type { RequestCheck } from '../errors/middleware';
import { isUiPath } from '../route-table';

export interface HttpsSettings {
  /** The HTTPS port the daemon listens on (known once it listens). */
  httpsPort(): number;
  /** `--public-url` when it is https: where to send clients, instead of the request's host. */
  publicUrl?: string;
  /** Publicly trusted certificate (ACME, the user's own): browsers are told to come back over HTTPS only. */
  hsts: boolean;
  /** Whether the request carries a credential, in any of the ways the daemon reads one (auth/middleware.ts). */
  carriesCredential(ctx: Context): boolean;
}

/** Where this daemon answers over HTTPS: the public URL, or the request's host (already checked) on the HTTPS port. */
function httpsBase(ctx: Context, s: HttpsSettings): string {
  if (s.publicUrl?.startsWith('https://')) return s.publicUrl;
  const port = s.httpsPort();
  // Koa's hostname keeps an IPv6 address's brackets (`[::1]`): urlHost writes them once.
  return `https://${urlHost(ctx.hostname)}${port === 443 ? '' : `:${port}`}`;
}

/**
 * With TLS on, nothing is served over plain HTTP. On the HTTPS port, a plain request
 * gets a short answer naming the daemon's https:// address (the listener hands such connections to
 * the same HTTP server: tls/listener.ts). On `--http-port`, a browser asking for a page (`GET` or
 * `HEAD` of `/`, `/ui`, `/ui/…`) with no credential is redirected to the same URL over HTTPS;
 * nothing else is ever redirected: an API call, a box download or catalog, and any
 * request that carries a credential (a token header or `?access_token=`, any Authorization, the
 * UI's session cookie), since a client that follows the redirect would send it again and the
 * Location would repeat a token in the URL. Those get `https_required` in their API's dialect,
 * which names the https:// address only, never the request's path or query. Runs after the Host
 * check, before authentication.
 */
export function httpsGuard(s: HttpsSettings): RequestCheck {
  return (ctx) => {
    if ((ctx.req.socket as TLSSocket).encrypted) {
      if (s.hsts) ctx.res.setHeader('Strict-Transport-Security', 'max-age=31536000');
      return undefined;
    }
    const base = httpsBase(ctx, s);
    // Nothing more is to cross this connection in clear.
    ctx.set('Connection', 'close');
    const page = isUiPath(ctx.path) && (ctx.method === 'GET' || ctx.method === 'HEAD') && !s.carriesCredential(ctx);
    if (page && ctx.req.socket.localPort !== s.httpsPort()) {
      ctx.status = 301;
      ctx.redirect(base + ctx.url);
      return 'answered';
    }
    if (page) {
      ctx.status = 400;
      ctx.type = 'text/plain';
      ctx.body = `This Boxyard daemon speaks HTTPS. Open ${base}\n`;
      return 'answered';
    }
    throw new HttpsRequiredError(
      `This Boxyard daemon speaks HTTPS only: send the request to ${base} (the same path) instead. Nothing was done. ` +
        'A token, password or session cookie sent with this request crossed the network unencrypted: revoke or change it.',
    );
  };
}
