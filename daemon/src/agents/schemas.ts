import { z } from 'zod';
import { AccountName } from '../auth/names';
import { PageQuery } from '../http/jsonapi/pagination';
import { ResourceInput, ToManyInput, ToOneInput } from '../http/jsonapi/request';

/** Pool, workspace and project names: identifiers, as HCP Terraform allows them. */
const Identifier = (what: string) =>
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
});
export const OrganizationCreateBody = ResourceInput(['organizations'], OrganizationAttributes, z.object({}))
  .refine((b) => b.data.attributes !== undefined, { message: 'data.attributes.name is required', path: ['data', 'attributes', 'name'] });
export const OrganizationUpdateBody = ResourceInput(['organizations'], OrganizationAttributes.partial(), z.object({}));

const PoolRelationships = z.object({
  'allowed-workspaces': ToManyInput('workspaces').optional(),
  'allowed-projects': ToManyInput('projects').optional(),
  'excluded-workspaces': ToManyInput('workspaces').optional(),
});
const PoolAttributes = z.object({ name: Identifier('name'), 'organization-scoped': z.boolean().optional() });
export const PoolCreateBody = ResourceInput(['agent-pools'], PoolAttributes, PoolRelationships)
  .refine((b) => b.data.attributes !== undefined, { message: 'data.attributes.name is required', path: ['data', 'attributes', 'name'] });
export const PoolUpdateBody = ResourceInput(['agent-pools'], PoolAttributes.partial(), PoolRelationships);

const WorkspaceAttributes = z.object({
  name: Identifier('name'),
  description: z.string().max(10_000).nullish(),
  'execution-mode': z.enum(['remote', 'local', 'agent']).optional(),
  'agent-pool-id': z.string().max(256).nullish(),
  operations: z.boolean().optional(),
});
const WorkspaceRelationships = z.object({
  project: ToOneInput('projects').optional(),
  'agent-pool': ToOneInput('agent-pools').optional(),
});
export const WorkspaceCreateBody = ResourceInput(['workspaces'], WorkspaceAttributes, WorkspaceRelationships)
  .refine((b) => b.data.attributes !== undefined, { message: 'data.attributes.name is required', path: ['data', 'attributes', 'name'] });
export const WorkspaceUpdateBody = ResourceInput(['workspaces'], WorkspaceAttributes.partial(), WorkspaceRelationships);

export const ProjectCreateBody = ResourceInput(['projects'], z.object({ name: z.string().trim().min(1).max(90) }), z.object({}))
  .refine((b) => b.data.attributes !== undefined, { message: 'data.attributes.name is required', path: ['data', 'attributes', 'name'] });

/** go-tfe and the tfe provider send `authentication-tokens`; HCP Terraform's docs also show `agent-tokens`. */
export const AgentTokenCreateBody = ResourceInput(['authentication-tokens', 'agent-tokens'], z.object({ description: z.string().max(1024).nullish() }), z.object({}));

const text = (max: number) => z.string().max(max).optional();
export const PoolListQuery = PageQuery.extend({
  q: text(256),
  sort: text(64),
  include: text(256),
  'filter[allowed_workspaces][name]': text(256),
  'filter[allowed-workspaces][name]': text(256),
  'filter[allowed_projects][name]': text(256),
  'filter[allowed-projects][name]': text(256),
});
export const IncludeQuery = z.object({ include: text(256) });
export const WorkspaceListQuery = PageQuery.extend({ 'search[name]': text(256) });
export const AgentListQuery = PageQuery.extend({ 'filter[last-ping-since]': text(64) });

export const IdParams = z.object({ id: z.string().min(1).max(256) });
export const OrgParams = z.object({ org: z.string().min(1).max(256) });
export const NameParams = z.object({ name: z.string().min(1).max(256) });

/** Boxyard agent protocol bodies (ours; see README "Agents"). */
export const RegisterBody = z.object({ name: z.string().trim().min(1).max(256).nullish() });
export const ReportBody = z.object({ status: z.enum(['idle', 'busy', 'exited']) });
