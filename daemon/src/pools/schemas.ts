import { z } from 'zod';
import {
  CreateAgentTokenDocument,
  CreatePoolDocument,
  UpdatePoolDocument,
  type PoolAttributes,
  type PoolRelationships,
} from '../contract/bodies/jsonapi';
import { PageQuery } from '../http/jsonapi/pagination';
import { optionalText as text } from '../http/params';
import type { PoolInput } from './service';
import { createBody } from '../http/jsonapi/create-body';

// Agent pool and agent token documents (contract/bodies/jsonapi.ts) → the service's input: wire names stay there, here
// and in resources.ts.

const ids = (rel: { data: Array<{ id: string }> } | undefined) => rel?.data.map((x) => x.id);
/** A present relationship replaces the list (`[]` clears it); an absent one is undefined: unchanged. */
const poolInput = (
  a: Partial<z.infer<typeof PoolAttributes>> = {},
  r: z.infer<typeof PoolRelationships> = {},
): PoolInput => ({
  name: a.name,
  organizationScoped: a['organization-scoped'],
  allowedWorkspaceIds: ids(r['allowed-workspaces']),
  allowedProjectIds: ids(r['allowed-projects']),
  excludedWorkspaceIds: ids(r['excluded-workspaces']),
});
export const PoolCreateBody = createBody(CreatePoolDocument, (a, r) => ({ ...poolInput(a, r), name: a.name }));
export const PoolUpdateBody = UpdatePoolDocument.transform((b) => poolInput(b.data.attributes, b.data.relationships));

export const AgentTokenCreateBody = CreateAgentTokenDocument.transform((b) => ({
  description: b.data.attributes?.description ?? '',
}));

/** The documented filter spelling uses underscores; newer tfe provider builds send dashes: accept both. */
export const PoolListQuery = PageQuery.extend({
  q: text(256),
  sort: text(64),
  include: text(256),
  'filter[allowed_workspaces][name]': text(256),
  'filter[allowed-workspaces][name]': text(256),
  'filter[allowed_projects][name]': text(256),
  'filter[allowed-projects][name]': text(256),
}).transform((q) => ({
  ...q,
  search: q.q || undefined,
  workspaceName: q['filter[allowed_workspaces][name]'] ?? q['filter[allowed-workspaces][name]'],
  projectName: q['filter[allowed_projects][name]'] ?? q['filter[allowed-projects][name]'],
}));
export const IncludeQuery = z.object({ include: text(256) });
