import type { z } from 'zod';
import { apiPath, type Fetcher } from './client';
import { load } from './load';
import { AgentJson, AgentPoolJson, AgentTokenJson, many, one } from '../../../daemon/src/contract/wire/jsonapi';
import type {
  CreateAgentTokenDocument,
  CreatePoolDocument,
  PoolAttributes,
  UpdatePoolDocument,
} from '../../../daemon/src/contract/bodies/jsonapi';
import { AgentStatusCountsAnswer, MAX_COUNTED_POOLS } from '../../../daemon/src/contract/wire/agent-counts';

const V2 = '/api/v2';
const J = { jsonapi: true } as const;

export const listPools = (api: Fetcher, org: string) =>
  load(
    api,
    many(AgentPoolJson),
    `${apiPath(`${V2}/organizations`, org)}/agent-pools?page%5Bsize%5D=100&sort=name`,
    J,
  ).then((r) => r.data);

export const getPool = (api: Fetcher, id: string) =>
  load(api, one(AgentPoolJson), apiPath(`${V2}/agent-pools`, id), J).then((r) => r.data);

export const createPool = (api: Fetcher, org: string, attributes: z.input<typeof PoolAttributes>) =>
  load(api, one(AgentPoolJson), `${apiPath(`${V2}/organizations`, org)}/agent-pools`, {
    ...J,
    method: 'POST',
    body: { data: { type: 'agent-pools', attributes } } satisfies z.input<typeof CreatePoolDocument>,
  }).then((r) => r.data);

/**
 * Agents per status of the listed pools, one request for a whole page of them (Boxyard's own
 * endpoint: the pool resource carries only `agent-count`). A pool without agents is absent.
 */
export const poolStatusCounts = (api: Fetcher, org: string, poolIds: string[]) =>
  load(
    api,
    AgentStatusCountsAnswer,
    `${apiPath('/api/boxyard/organizations', org)}/agent-status-counts?pools=${poolIds.slice(0, MAX_COUNTED_POOLS).map(encodeURIComponent).join(',')}`,
  ).then((r) => r.status_counts);

const patchPool = (api: Fetcher, id: string, data: z.input<typeof UpdatePoolDocument>['data']) =>
  load(api, one(AgentPoolJson), apiPath(`${V2}/agent-pools`, id), {
    ...J,
    method: 'PATCH',
    body: { data } satisfies z.input<typeof UpdatePoolDocument>,
  }).then((r) => r.data);

export const renamePool = (api: Fetcher, id: string, name: string) =>
  patchPool(api, id, { type: 'agent-pools', attributes: { name } });

export const deletePool = (api: Fetcher, id: string) =>
  api(apiPath(`${V2}/agent-pools`, id), { ...J, method: 'DELETE' });

export const listTokens = (api: Fetcher, poolId: string) =>
  load(
    api,
    many(AgentTokenJson),
    `${apiPath(`${V2}/agent-pools`, poolId)}/authentication-tokens?page%5Bsize%5D=100`,
    J,
  ).then((r) => r.data);

/** The answer carries the secret (`attributes.token`); it is never shown again. */
export const createToken = (api: Fetcher, poolId: string, description: string) =>
  load(api, one(AgentTokenJson), `${apiPath(`${V2}/agent-pools`, poolId)}/authentication-tokens`, {
    ...J,
    method: 'POST',
    body: { data: { type: 'authentication-tokens', attributes: { description } } } satisfies z.input<
      typeof CreateAgentTokenDocument
    >,
  }).then((r) => r.data);

export const revokeToken = (api: Fetcher, id: string) =>
  api(apiPath(`${V2}/authentication-tokens`, id), { ...J, method: 'DELETE' });

export const listAgents = (api: Fetcher, poolId: string) =>
  load(api, many(AgentJson), `${apiPath(`${V2}/agent-pools`, poolId)}/agents?page%5Bsize%5D=100`, J).then(
    (r) => r.data,
  );

export const deleteAgent = (api: Fetcher, id: string) => api(apiPath(`${V2}/agents`, id), { ...J, method: 'DELETE' });

/** Who may use a pool: the whole organization, or only the listed workspaces (the list replaces the old one). */
export const setPoolScope = (api: Fetcher, id: string, organizationScoped: boolean, allowedWorkspaceIds: string[]) =>
  patchPool(api, id, {
    type: 'agent-pools',
    attributes: { 'organization-scoped': organizationScoped },
    relationships: {
      'allowed-workspaces': { data: allowedWorkspaceIds.map((w) => ({ type: 'workspaces' as const, id: w })) },
    },
  });
