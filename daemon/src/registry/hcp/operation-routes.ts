import Router from '@koa/router';
import { validated } from '../../http/validate';
import { HCP } from '../../http/route-table';
import { NotFoundError } from '../../lib/errors';
import { caller, type RegistryRouteDeps } from '../route-helpers';
import { OperationParams } from './schemas';
import { createdOperation, ownerIdOf } from './serialize';

/**
 * HCP's operation wait, for the operation a box's creation returns (routes.ts). Boxyard creates a box before it
 * answers, so the operation is the box itself: its id is the box's, it is DONE while the box is there, and nothing
 * is kept for it beyond the box's row, so it answers the same after a restart and on every daemon of a cluster. Any
 * other id, a box the caller may not see, or another owner's location is 404.
 */
export function hcpOperationRoutes(deps: Pick<RegistryRouteDeps, 'registry'>): Router {
  const r = new Router();
  r.get(
    HCP.operationWait.path,
    validated({ params: OperationParams }, async (ctx, { params }) => {
      const box = await deps.registry.boxById(caller(ctx), params.id);
      const owner = box && ownerIdOf(box);
      if (!box || owner !== params.org || owner !== params.project) {
        throw new NotFoundError(
          `No operation "${params.id}" in organization "${params.org}", project "${params.project}".`,
        );
      }
      ctx.body = { operation: createdOperation(box) };
    }),
  );
  return r;
}
