import Router from '@koa/router';
import type { Context } from 'koa';
import { ROOT } from '../../http/route-table';
import { smallBody } from '../../http/body';
import type { LoginLimiter } from '../../http/guards/rate-limit';
import { BadRequestError, MethodNotAllowedError, UnauthorizedError } from '../../lib/errors';
import type { ServicePrincipalService } from './service';

export interface TokenRouteDeps {
  principals: ServicePrincipalService;
  loginLimiter: LoginLimiter;
  config: { jsonBodySeconds: number };
}

/** RFC 6749 §2.3.1's challenge, answered with invalid_client when the client authenticated with HTTP Basic. */
const CHALLENGE = 'Basic realm="boxyard", charset="UTF-8"';
/** A token request is a few short fields. */
const FORM_LIMIT = 16 * 1024;
const MAX_ID = 256;
const MAX_SECRET = 1024;

interface Credentials {
  id: string;
  secret: string;
}

const refused = (message: string, basic: boolean) =>
  new UnauthorizedError(message, basic ? { challenge: CHALLENGE } : {});

/** `application/x-www-form-urlencoded` decoding, which RFC 6749 §2.3.1 asks of the Basic user and password too. */
function formDecoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    throw refused('The client id or secret in the Authorization header is not properly URL-encoded.', true);
  }
}

/** The client's credentials from `Authorization: Basic`, undefined without that header. */
function basicCredentials(ctx: Context): Credentials | undefined {
  const m = /^Basic\s+([A-Za-z0-9+/=_-]*)\s*$/i.exec(ctx.get('authorization'));
  if (!m) {
    if (/^Basic\b/i.test(ctx.get('authorization'))) throw refused('The Basic credentials are not base64.', true);
    return undefined;
  }
  const pair = Buffer.from(m[1], 'base64').toString('utf8');
  const colon = pair.indexOf(':');
  if (colon < 0) throw refused('The Basic credentials must be "client_id:client_secret".', true);
  return { id: formDecoded(pair.slice(0, colon)), secret: formDecoded(pair.slice(colon + 1)) };
}

/** The form's fields, each at most once (RFC 6749 §3.2: a parameter sent twice is an invalid request). */
async function tokenForm(ctx: Context, deadlineMs: number): Promise<URLSearchParams> {
  if (!ctx.is('application/x-www-form-urlencoded')) {
    throw new BadRequestError(
      'Send the token request as application/x-www-form-urlencoded, with grant_type=client_credentials.',
    );
  }
  const form = new URLSearchParams(await smallBody(ctx, FORM_LIMIT, deadlineMs));
  for (const key of new Set(form.keys())) {
    if (form.getAll(key).length > 1) throw new BadRequestError(`"${key}" was sent more than once: send it once.`);
  }
  return form;
}

/** The client's credentials, by HTTP Basic or in the form, never both (RFC 6749 §2.3). */
function credentials(ctx: Context, form: URLSearchParams): { creds: Credentials; basic: boolean } {
  const basic = basicCredentials(ctx);
  const inForm = form.has('client_id') || form.has('client_secret');
  if (basic && inForm) {
    throw new BadRequestError('Send the client id and secret one way: HTTP Basic or the form, not both.');
  }
  const creds = basic ?? { id: form.get('client_id') ?? '', secret: form.get('client_secret') ?? '' };
  if (!creds.id || !creds.secret) {
    throw refused(
      'Client authentication required: send the client id and secret by HTTP Basic, or as client_id and client_secret in the form.',
      !inForm,
    );
  }
  if (creds.id.length > MAX_ID || creds.secret.length > MAX_SECRET) {
    throw refused('The client id or secret is wrong, or the service principal was revoked.', basic !== undefined);
  }
  return { creds, basic: basic !== undefined };
}

/**
 * `POST /oauth2/token`, OAuth2's client credentials grant (RFC 6749 §4.4) as HCP's sign-in sends it: Go's
 * golang.org/x/oauth2 (Basic, then the form), the vagrant_cloud gem (Basic, no audience). `audience` and `scope` are
 * ignored. Errors are RFC 6749 §5.2's (the `oauth2` dialect); wrong credentials count as failed logins.
 */
export function oauth2TokenRoutes(deps: TokenRouteDeps): Router {
  const r = new Router();
  r.post(ROOT.oauth2Token.path, async (ctx) => {
    const form = await tokenForm(ctx, deps.config.jsonBodySeconds * 1000);
    const grant = form.get('grant_type');
    if (!grant) throw new BadRequestError('grant_type is required: send grant_type=client_credentials.');
    if (grant !== 'client_credentials') {
      throw new BadRequestError(`grant_type "${grant.slice(0, 64)}" is not supported: only client_credentials is.`, {
        field: 'grant_type',
      });
    }
    const { creds, basic } = credentials(ctx, form);
    const issued = await deps.principals.exchange(
      creds.id,
      creds.secret,
      deps.loginLimiter.from(ctx.ip),
      basic ? CHALLENGE : undefined,
    );
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Pragma', 'no-cache');
    ctx.body = { access_token: issued.access_token, token_type: 'Bearer', expires_in: issued.expires_in };
  });
  r.all(ROOT.oauth2Token.path, () => {
    throw new MethodNotAllowedError('The token endpoint takes POST only.');
  });
  return r;
}
