import { z } from 'zod';
import { AccountName } from '../contract/names';
import { Email } from '../contract/bodies-accounts';
import { ResourceInput, ToOneInput } from '../contract/bodies-jsonapi';
import { EXECUTION_MODES } from '../contract/wire-jsonapi';
import { NameParams } from '../http/params';
import type { OrganizationInput } from './tfc-service';

/* Organization bodies of Boxyard's own API (/api/boxyard); those the web UI sends too: contract/bodies-accounts.ts. */
export { CreateOrganizationBody, MemberBody } from '../contract/bodies-accounts';
export const UpdateOrganizationBody = z.object({
  organization: z.object({
    email: Email.nullish(),
    profile_markdown: z.string().max(100_000).optional(),
    agent_pool_limit: z.number().int().min(0).max(10_000).optional(),
  }),
});
export const MemberParams = NameParams.extend({ username: z.string().min(1).max(256) });

/* Organization bodies of the JSON:API, wire → domain: wire names stay here and in resources.ts. */
/** `"a", "b" or "c"`. */
const quoted = (values: readonly string[]) => values.map((v) => `"${v}"`).join(', ').replace(/, (?=[^,]*$)/, ' or ');
const OrganizationAttributes = z.object({
  name: AccountName,
  email: Email.nullish(),
  'agent-pool-limit': z.number().int().min(0).max(10_000).optional(),
  'collaborator-auth-policy': z.enum(['password', 'two_factor_mandatory']).optional(),
  'cost-estimation-enabled': z.boolean().optional(),
  'session-remember': z.number().int().min(0).max(1_000_000).nullish(),
  'session-timeout': z.number().int().min(0).max(1_000_000).nullish(),
  'owners-team-saml-role-id': z.string().max(256).nullish(),
  'default-execution-mode': z.enum(EXECUTION_MODES, { message: `default-execution-mode must be ${quoted(EXECUTION_MODES)}` }).optional(),
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
