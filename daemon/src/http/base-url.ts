import type { Context } from 'koa';

/**
 * The absolute base URL clients reach this daemon at: the configured public URL, else the
 * request's own scheme and Host (so LAN clients get links they can follow).
 */
export function baseUrl(ctx: Context, publicUrl: string | undefined): string {
  if (publicUrl) return publicUrl;
  return `${ctx.protocol}://${ctx.host}`;
}
