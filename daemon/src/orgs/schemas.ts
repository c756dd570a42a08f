import { z } from 'zod';
import { Email } from '../contract/bodies/accounts';
import {
  CreateOrganizationDocument,
  UpdateOrganizationDocument,
  type OrganizationAttributes,
  type OrganizationRelationships,
} from '../contract/bodies/jsonapi';
import { NameParams } from '../http/params';
import type { OrganizationInput } from './tfc-service';
import { createBody } from '../http/jsonapi/create-body';

/* Organization bodies of Boxyard's own API (/api/boxyard); those the web UI sends too: contract/bodies/accounts.ts. */
export { CreateOrganizationBody, MemberBody } from '../contract/bodies/accounts';
export const UpdateOrganizationBody = z.object({
  organization: z.object({
    email: Email.nullish(),
    profile_markdown: z.string().max(100_000).optional(),
    agent_pool_limit: z.number().int().min(0).max(10_000).optional(),
  }),
});
export const MemberParams = NameParams.extend({ username: z.string().min(1).max(256) });

// Organization bodies of the JSON:API (contract/bodies/jsonapi.ts), wire → domain: wire names stay there, here and in
// resources.ts.
const organizationInput = (
  a: Partial<z.infer<typeof OrganizationAttributes>> = {},
  r: z.infer<typeof OrganizationRelationships> = {},
): OrganizationInput => ({
  name: a.name,
  email: a.email,
  agentPoolLimit: a['agent-pool-limit'],
  collaboratorAuthPolicy: a['collaborator-auth-policy'],
  costEstimationEnabled: a['cost-estimation-enabled'],
  sessionRemember: a['session-remember'],
  sessionTimeout: a['session-timeout'],
  ownersTeamSamlRoleId: a['owners-team-saml-role-id'],
  defaultExecutionMode: a['default-execution-mode'],
  defaultAgentPoolId: r['default-agent-pool'] === undefined ? undefined : (r['default-agent-pool'].data?.id ?? null),
});
export const OrganizationCreateBody = createBody(CreateOrganizationDocument, (a, r) => ({
  ...organizationInput(a, r),
  name: a.name,
}));
export const OrganizationUpdateBody = UpdateOrganizationDocument.transform((b) =>
  organizationInput(b.data.attributes, b.data.relationships),
);
