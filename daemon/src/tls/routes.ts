import { X509Certificate } from 'node:crypto';
import Router from '@koa/router';
import type { Middleware } from 'koa';
import { NotFoundError } from '../lib/errors';
import { BOXYARD, ROOT } from '../http/route-table';
import type { PublicCaAnswer } from '../contract/wire/ca';
import type { CertificateSource } from './issuer';

/**
 * `GET /ca.pem` (PEM) and `GET /ca.crt` (DER, as operating systems import it): the local CA of
 * `--tls auto`, to anyone, so that clients can trust it (after checking its fingerprint:
 * `boxyard trust`). 404 when the certificate is not from a local CA.
 */
export function caRoutes(source: CertificateSource | null): Middleware {
  return (ctx, next) => {
    const pem = ctx.path === ROOT.caPem.path;
    if ((!pem && ctx.path !== ROOT.caCrt.path) || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    if (!source?.ca)
      throw new NotFoundError(
        'This daemon has no local CA to trust: it serves plain HTTP, or a certificate from a public CA or of your own (--tls auto makes one).',
      );
    ctx.set('Cache-Control', 'no-cache');
    if (pem) {
      ctx.type = 'application/x-pem-file';
      ctx.body = source.ca.pem;
    } else {
      ctx.type = 'application/x-x509-ca-cert';
      ctx.body = new X509Certificate(source.ca.pem).raw;
    }
    return undefined;
  };
}

/**
 * `GET /api/boxyard/ca`: the local CA's fingerprint to anyone (contract/wire/ca.ts), what `/ca.pem` tells already, so
 * that anonymous visitors' pages show the trust step too. Whoever answers in between could change it, as they could
 * the page: the fingerprint the daemon printed at start, from its administrator, is the one to compare.
 */
export function publicCaRoutes(source: CertificateSource | null): Router {
  const r = new Router();
  r.get(BOXYARD.ca.path, (ctx) => {
    const answer: PublicCaAnswer = { ca: source?.ca ? { fingerprint: source.ca.fingerprint } : null };
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = answer;
  });
  return r;
}

const CHALLENGE = /^\/\.well-known\/acme-challenge\/([A-Za-z0-9_-]+)$/;

/**
 * ACME's HTTP-01 challenge (`--tls acme`), answered on the plain-HTTP port before any other check:
 * the CA asks for the public name, which may not be a Host the daemon otherwise answers, over
 * plain HTTP, which the daemon otherwise redirects. Unknown tokens go on (404).
 */
export function acmeChallenges(source: CertificateSource): Middleware {
  return (ctx, next) => {
    const token = ctx.method === 'GET' ? CHALLENGE.exec(ctx.path)?.[1] : undefined;
    const answer = token ? source.challenge?.(token) : undefined;
    if (answer === undefined) return next();
    ctx.type = 'text/plain';
    ctx.body = answer;
    return undefined;
  };
}
