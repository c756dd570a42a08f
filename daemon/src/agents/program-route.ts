import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Middleware } from 'koa';
import { AGENT_PROGRAM_FILE } from '../contract/lan';
import { NotFoundError } from '../lib/errors';
import { packageRoot } from '../lib/package-root';
import { ROOT } from '../http/route-table';

/** Where `npm run build:daemon` writes the agent program (scripts/build-daemon.mjs), in the package. */
export const defaultAgentProgram = (): string => join(packageRoot(), 'dist', 'agent', AGENT_PROGRAM_FILE);

/**
 * `GET /boxyard-agent.mjs`, to anyone: `boxyard agent` as one file for Node ≥ 20 (agents/program.ts), so that a
 * machine without Boxyard runs an agent with `node boxyard-agent.mjs agent …` (the agent page hands out the lines).
 * It holds Boxyard's own code and no secret: it is what an agent token is useless without, nothing more.
 */
export function agentProgramRoute(file: string = defaultAgentProgram()): Middleware {
  return async (ctx, next) => {
    if (ctx.path !== ROOT.agentProgram.path || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    const size = await stat(file).then(
      (s) => s.size,
      () => undefined,
    );
    if (size === undefined)
      throw new NotFoundError('The agent program has not been built here: run `npm run build:daemon` on the server.');
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = 'text/javascript; charset=utf-8';
    ctx.length = size;
    if (ctx.method === 'HEAD') ctx.status = 200;
    else ctx.body = createReadStream(file);
  };
}
