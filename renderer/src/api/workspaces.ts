import type { z } from 'zod';
import { apiPath, type Fetcher } from './client';
import { load } from './load';
import { WorkspaceJson, many, one } from '../../../daemon/src/contract/wire/jsonapi';
import type {
  CreateWorkspaceDocument,
  UpdateWorkspaceDocument,
  WorkspaceAttributes,
} from '../../../daemon/src/contract/bodies/jsonapi';

const V2 = '/api/v2';
const J = { jsonapi: true } as const;

export const listWorkspaces = (api: Fetcher, org: string) =>
  load(api, many(WorkspaceJson), `${apiPath(`${V2}/organizations`, org)}/workspaces?page%5Bsize%5D=100`, J).then(
    (r) => r.data,
  );

export const createWorkspace = (api: Fetcher, org: string, attributes: z.input<typeof WorkspaceAttributes>) =>
  load(api, one(WorkspaceJson), `${apiPath(`${V2}/organizations`, org)}/workspaces`, {
    ...J,
    method: 'POST',
    body: { data: { type: 'workspaces', attributes } } satisfies z.input<typeof CreateWorkspaceDocument>,
  }).then((r) => r.data);

export const deleteWorkspace = (api: Fetcher, id: string) =>
  api(apiPath(`${V2}/workspaces`, id), { ...J, method: 'DELETE' });

/**
 * Runs the workspace on a pool's agents (execution mode `agent`), on the server with `null`, both
 * its own settings; or, with `'default'`, as its organization's defaults say (setting-overwrites false).
 */
export const setWorkspacePool = (api: Fetcher, id: string, poolId: string | null | 'default') =>
  load(api, one(WorkspaceJson), apiPath(`${V2}/workspaces`, id), {
    ...J,
    method: 'PATCH',
    body: {
      data: {
        type: 'workspaces',
        attributes:
          poolId === 'default'
            ? { 'setting-overwrites': { 'execution-mode': false, 'agent-pool': false } }
            : {
                'execution-mode': poolId ? 'agent' : 'remote',
                'agent-pool-id': poolId,
                'setting-overwrites': { 'execution-mode': true, 'agent-pool': true },
              },
      },
    } satisfies z.input<typeof UpdateWorkspaceDocument>,
  }).then((r) => r.data);
