import { z } from 'zod';
import { ResourceInput, ToManyInput } from '../http/jsonapi/request';
import { PageQuery } from '../http/jsonapi/pagination';
import { optionalText as text } from '../http/params';
import { Identifier } from '../workspaces/schemas';
import type { PoolInput } from './service';

/* Agent pool and agent token bodies, wire → domain: wire names stay here and in resources.ts. */

const PoolRelationships = z.object({
  'allowed-workspaces': ToManyInput('workspaces').optional(),
  'allowed-projects': ToManyInput('projects').optional(),
  'excluded-workspaces': ToManyInput('workspaces').optional(),
});
const PoolAttributes = z.object({ name: Identifier('name'), 'organization-scoped': z.boolean().optional() });
const ids = (rel: { data: Array<{ id: string }> } | undefined) => rel?.data.map((x) => x.id);
/** A present relationship replaces the list (`[]` clears it); an absent one is undefined: unchanged. */
const poolInput = (a: Partial<z.infer<typeof PoolAttributes>> = {}, r: z.infer<typeof PoolRelationships> = {}): PoolInput => ({
  name: a.name,
  organizationScoped: a['organization-scoped'],
  allowedWorkspaceIds: ids(r['allowed-workspaces']),
  allowedProjectIds: ids(r['allowed-projects']),
  excludedWorkspaceIds: ids(r['excluded-workspaces']),
});
export const PoolCreateBody = ResourceInput(['agent-pools'], PoolAttributes, PoolRelationships)
  .refine((b) => b.data.attributes !== undefined, { message: 'data.attributes.name is required', path: ['data', 'attributes', 'name'] })
  .transform((b) => ({ ...poolInput(b.data.attributes, b.data.relationships), name: b.data.attributes!.name }));
export const PoolUpdateBody = ResourceInput(['agent-pools'], PoolAttributes.partial(), PoolRelationships)
  .transform((b) => poolInput(b.data.attributes, b.data.relationships));

/** go-tfe and the tfe provider send `authentication-tokens`; HCP Terraform's docs also show `agent-tokens`. */
export const AgentTokenCreateBody = ResourceInput(['authentication-tokens', 'agent-tokens'], z.object({ description: z.string().max(1024).nullish() }), z.object({}))
  .transform((b) => ({ description: b.data.attributes?.description ?? '' }));

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
