import { z } from 'zod';
import { AccountName } from '../auth/names';
import { PageQuery } from '../http/jsonapi/pagination';
import { ResourceInput, ToManyInput, ToOneInput } from '../http/jsonapi/request';
import type { OrganizationInput } from './organizations-service';
import type { PoolInput } from './pools-service';

/*
 * Wire → domain: each body schema validates the JSON:API document and hands the service its input
 * type, so wire names stay here (workspace bodies: workspace-schemas.ts) and in resources.ts.
 */

/** Pool, workspace and project names: identifiers, as HCP Terraform allows them. */
export const Identifier = (what: string) =>
  z.string().min(1, `${what} must not be empty`).max(90, `${what} must be at most 90 characters`)
    .regex(/^[A-Za-z0-9_-]+$/, `${what} may contain only letters, numbers, "-" and "_"`);

const OrganizationAttributes = z.object({
  name: AccountName,
  email: z.email().max(256).nullish(),
  'agent-pool-limit': z.number().int().min(0).max(10_000).optional(),
  'collaborator-auth-policy': z.enum(['password', 'two_factor_mandatory']).optional(),
  'cost-estimation-enabled': z.boolean().optional(),
  'session-remember': z.number().int().min(0).max(1_000_000).nullish(),
  'session-timeout': z.number().int().min(0).max(1_000_000).nullish(),
  'owners-team-saml-role-id': z.string().max(256).nullish(),
  'default-execution-mode': z.enum(['remote', 'local', 'agent'], { message: 'default-execution-mode must be "remote", "local" or "agent"' }).optional(),
});
/** tfe_organization_default_settings sends `default-agent-pool` only with a pool id; `data: null` clears it. */
const OrganizationRelationships = z.object({ 'default-agent-pool': ToOneInput('agent-pools').optional() });
const organizationInput = (a: Partial<z.infer<typeof OrganizationAttributes>> = {}, r: z.infer<typeof OrganizationRelationships> = {}): OrganizationInput => ({
  name: a.name, email: a.email, agentPoolLimit: a['agent-pool-limit'], collaboratorAuthPolicy: a['collaborator-auth-policy'],
  costEstimationEnabled: a['cost-estimation-enabled'], sessionRemember: a['session-remember'], sessionTimeout: a['session-timeout'],
  ownersTeamSamlRoleId: a['owners-team-saml-role-id'],
  defaultExecutionMode: a['default-execution-mode'],
  defaultAgentPoolId: r['default-agent-pool'] === undefined ? undefined : r['default-agent-pool'].data?.id ?? null,
});
export const OrganizationCreateBody = ResourceInput(['organizations'], OrganizationAttributes, OrganizationRelationships)
  .refine((b) => b.data.attributes !== undefined, { message: 'data.attributes.name is required', path: ['data', 'attributes', 'name'] })
  .transform((b) => ({ ...organizationInput(b.data.attributes, b.data.relationships), name: b.data.attributes!.name }));
export const OrganizationUpdateBody = ResourceInput(['organizations'], OrganizationAttributes.partial(), OrganizationRelationships)
  .transform((b) => organizationInput(b.data.attributes, b.data.relationships));

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

export const ProjectCreateBody = ResourceInput(['projects'], z.object({ name: z.string().trim().min(1).max(90) }), z.object({}))
  .refine((b) => b.data.attributes !== undefined, { message: 'data.attributes.name is required', path: ['data', 'attributes', 'name'] })
  .transform((b) => ({ name: b.data.attributes!.name }));

/** go-tfe and the tfe provider send `authentication-tokens`; HCP Terraform's docs also show `agent-tokens`. */
export const AgentTokenCreateBody = ResourceInput(['authentication-tokens', 'agent-tokens'], z.object({ description: z.string().max(1024).nullish() }), z.object({}))
  .transform((b) => ({ description: b.data.attributes?.description ?? '' }));

const text = (max: number) => z.string().max(max).optional();
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
export const WorkspaceListQuery = PageQuery.extend({ 'search[name]': text(256) });
export const AgentListQuery = PageQuery.extend({ 'filter[last-ping-since]': text(64) });

export const IdParams = z.object({ id: z.string().min(1).max(256) });
export const OrgParams = z.object({ org: z.string().min(1).max(256) });
export const NameParams = z.object({ name: z.string().min(1).max(256) });
export const OrgNameParams = OrgParams.extend(NameParams.shape);

/** Boxyard agent protocol bodies (ours; see README "Agents"). */
export const RegisterBody = z.object({ name: z.string().trim().min(1).max(256).nullish() });
export const ReportBody = z.object({ status: z.enum(['idle', 'busy', 'exited']) });
