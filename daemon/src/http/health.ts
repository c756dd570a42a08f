import type { Middleware } from 'koa';
import { VERSION } from '../version';

/**
 * `/healthz`, and Terraform's service discovery (the tfe provider and `terraform login` read it,
 * over HTTPS, so it matters behind a TLS proxy): the agent-pools API is HCP Terraform's /api/v2.
 * Answered before maintenance and rate limits, by exact path.
 */
export function health(): Middleware {
  const answers = new Map<string, object>([
    ['/healthz', { status: 'ok', name: 'boxyard', version: VERSION }],
    ['/.well-known/terraform.json', { 'tfe.v2': '/api/v2/', 'tfe.v2.1': '/api/v2/', 'tfe.v2.2': '/api/v2/' }],
  ]);
  return (ctx, next) => {
    const body = ctx.method === 'GET' || ctx.method === 'HEAD' ? answers.get(ctx.path) : undefined;
    if (!body) return next();
    ctx.body = body;
    return undefined;
  };
}
