import type { Context } from 'koa';
import type { RequestCheck } from '../errors/middleware';
import { isUiPath } from '../route-table';

/**
 * The web UI's Content Security Policy. Vite's build is one module script and one stylesheet
 * under /ui/assets/, with no inline script or style (test/http/security-headers.test.ts checks the built
 * index.html), so everything is 'self'. `data:` images are the QR code for an authenticator app and
 * index.html's empty favicon. connect-src covers fetch() and the upload XHR (same origin only).
 */
export const UI_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Everything else (JSON, catalogs, box files): nothing may run in it or frame it, if a browser ever renders one. */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'";

// Browsers must not guess a type: a JSON answer (or an uploaded box) is never run as script or HTML.
const NOSNIFF: [string, string] = ['X-Content-Type-Options', 'nosniff'];
const UI: Array<[string, string]> = [
  NOSNIFF,
  ['Content-Security-Policy', UI_CSP],
  // frame-ancestors for browsers that predate it: no page may frame Boxyard (clickjacking).
  ['X-Frame-Options', 'DENY'],
  // UI paths name private boxes and organizations; links out (box URLs, docs) do not carry them.
  ['Referrer-Policy', 'no-referrer'],
  ['Cross-Origin-Opener-Policy', 'same-origin'],
];
// API answers, box files and errors are never pages: nothing to link from, and the CSP's
// frame-ancestors already keeps them out of frames. Two headers, since every request pays for each.
const API: Array<[string, string]> = [NOSNIFF, ['Content-Security-Policy', API_CSP]];

/**
 * The UI's headers on an answer outside /ui/ that is the UI's page: a box's catalog URL opened in a browser
 * (ui/static.ts).
 */
export function setUiPageHeaders(ctx: Context): void {
  for (const [k, v] of UI) ctx.res.setHeader(k, v);
}

/**
 * Security headers on every answer, errors included (the error middleware calls this before
 * anything can fail, and keeps them). Written out rather than taken from helmet: constant headers
 * per kind of answer, chosen by path in a plain call on a path every request takes (bench/'s `api` goals), and
 * helmet's defaults (HSTS on a plain-HTTP LAN daemon, CORP on box files) would each need
 * switching off.
 */
export const setSecurityHeaders: RequestCheck = (ctx) => {
  const res = ctx.res;
  for (const [k, v] of isUiPath(ctx.path) ? UI : API) res.setHeader(k, v);
  return undefined;
};
