import type { Context } from 'koa';

/**
 * Whether `GET /ORG/BOX` comes from a browser, which gets the box's page instead of the catalog
 * (Vagrant Cloud answered the same way). A browser's Accept names text/html first
 * (Chromium: `text/html,application/xhtml+xml,…,*\/*;q=0.8`). vagrant sends `application/json`,
 * curl and Packer `*\/*` or nothing: none of them names text/html, so the catalog's hot path costs
 * one string search, and only a header that does is weighed (q-values, then order: JSON wins a tie).
 */
export function prefersPage(ctx: Context): boolean {
  const accept = ctx.get('accept');
  if (!accept.includes('text/html')) return false;
  return ctx.accepts('application/json', 'text/html') === 'text/html';
}
