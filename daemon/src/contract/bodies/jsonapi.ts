import { z, type ZodType } from 'zod';
import { EXECUTION_MODES } from '../wire/jsonapi';
import { AccountName } from '../names';
import { Email, TokenDescription } from './accounts';

/**
 * What the HCP Terraform-compatible API's changes take (JSON:API under /api/v2): the request
 * documents of agent pools, agent tokens and workspaces, as go-tfe, the tfe provider and the web
 * UI send them. pools/schemas.ts and workspaces/schemas.ts turn them into the services' inputs;
 * the web UI types what it sends with `z.input` of these. Pure (zod only).
 */

/** `{type, id}` of a related resource of the given type. */
const ResourceIdentifier = <T extends string>(type: T) =>
  z.object({
    type: z.literal(type, { message: `type must be "${type}"` }),
    id: z.string().min(1, 'id must not be empty').max(256),
  });

/** A to-many relationship in a request: `{data: [{type, id}, …]}`; `[]` clears it. */
export const ToManyInput = <T extends string>(type: T) =>
  z.object({ data: z.array(ResourceIdentifier(type)).max(1000) });

/** A to-one relationship in a request: `{data: {type, id}}` or `{data: null}`. */
export const ToOneInput = <T extends string>(type: T) => z.object({ data: ResourceIdentifier(type).nullable() });

/**
 * A JSON:API request document: `{data: {type, attributes, relationships}}`. Unknown attributes and
 * relationships are dropped (zod strips them), as HCP Terraform ignores them.
 */
export function ResourceInput<const T extends readonly [string, ...string[]], A extends ZodType, R extends ZodType>(
  types: T,
  attributes: A,
  relationships: R,
) {
  return z.object({
    data: z.object(
      {
        type: z.enum(types, { message: `data.type must be ${types.map((t) => `"${t}"`).join(' or ')}` }),
        id: z.string().optional(),
        attributes: attributes.optional(),
        relationships: relationships.optional(),
      },
      { message: 'expected a JSON:API document: {"data": {"type": …, "attributes": {…}}}' },
    ),
  });
}

/**
 * Pool, workspace and project names: identifiers, as HCP Terraform allows them. Its description is the rule in words,
 * which the web UI's name field (renderer/src/components/name-field.tsx) shows under it before anything is typed.
 */
export const TFC_NAME = { pattern: '[A-Za-z0-9_\\-]+', words: 'letters, numbers, "-" and "_"', max: 90 } as const;
export const TfcName = (what: string) =>
  z
    .string()
    .min(1, `${what} must not be empty`)
    .max(TFC_NAME.max, `${what} must be at most ${TFC_NAME.max} characters`)
    .regex(new RegExp(`^${TFC_NAME.pattern}$`), `${what} may contain only ${TFC_NAME.words}`)
    .describe(`Up to ${TFC_NAME.max} ${TFC_NAME.words}: no spaces. Terraform names it by this.`);

// ---- agent pools and their tokens ----

export const PoolAttributes = z.object({
  name: TfcName('name'),
  /** True: every workspace of the organization may use the pool; false: only the allowed ones. */
  'organization-scoped': z.boolean().optional(),
});
/** A present relationship replaces the list (`[]` clears it); an absent one leaves it. */
export const PoolRelationships = z.object({
  'allowed-workspaces': ToManyInput('workspaces').optional(),
  'allowed-projects': ToManyInput('projects').optional(),
  'excluded-workspaces': ToManyInput('workspaces').optional(),
});
/** `POST /organizations/:org/agent-pools` (the name is required: pools/schemas.ts). */
export const CreatePoolDocument = ResourceInput(['agent-pools'], PoolAttributes, PoolRelationships);
/** `PATCH /agent-pools/:id`. */
export const UpdatePoolDocument = ResourceInput(['agent-pools'], PoolAttributes.partial(), PoolRelationships);

/**
 * `POST /agent-pools/:id/authentication-tokens`. go-tfe and the tfe provider send `authentication-tokens`; HCP
 * Terraform's docs also show `agent-tokens`.
 */
export const CreateAgentTokenDocument = ResourceInput(
  ['authentication-tokens', 'agent-tokens'],
  z.object({ description: TokenDescription.nullish() }),
  z.object({}),
);

// ---- organizations ----

/** `"a", "b" or "c"`. */
const quoted = (values: readonly string[]) =>
  values
    .map((v) => `"${v}"`)
    .join(', ')
    .replace(/, (?=[^,]*$)/, ' or ');
export const OrganizationAttributes = z.object({
  name: AccountName,
  email: Email.nullish(),
  'agent-pool-limit': z.number().int().min(0).max(10_000).optional(),
  'collaborator-auth-policy': z.enum(['password', 'two_factor_mandatory']).optional(),
  'cost-estimation-enabled': z.boolean().optional(),
  'session-remember': z.number().int().min(0).max(1_000_000).nullish(),
  'session-timeout': z.number().int().min(0).max(1_000_000).nullish(),
  'owners-team-saml-role-id': z.string().max(256).nullish(),
  'default-execution-mode': z
    .enum(EXECUTION_MODES, { message: `default-execution-mode must be ${quoted(EXECUTION_MODES)}` })
    .optional(),
});
/** tfe_organization_default_settings sends `default-agent-pool` only with a pool id; `data: null` clears it. */
export const OrganizationRelationships = z.object({ 'default-agent-pool': ToOneInput('agent-pools').optional() });
/** `POST /organizations` (the name is required: orgs/schemas.ts). */
export const CreateOrganizationDocument = ResourceInput(
  ['organizations'],
  OrganizationAttributes,
  OrganizationRelationships,
);
/** `PATCH /organizations/:name`: the agent-pool limit and the defaults the web UI changes, among the rest. */
export const UpdateOrganizationDocument = ResourceInput(
  ['organizations'],
  OrganizationAttributes.partial(),
  OrganizationRelationships,
);

// ---- workspaces ----

/*
 * The settings are what go-tfe's WorkspaceCreateOptions and WorkspaceUpdateOptions carry and
 * terraform-provider-tfe's tfe_workspace / tfe_workspace_settings send and read back (go-tfe
 * workspace.go, provider resource_tfe_workspace.go and resource_tfe_workspace_settings.go at
 * 01a4069d / 06283ee1). Absent: unchanged; wrong types: 422.
 */

const bool = (what: string) => z.boolean({ message: `${what} must be true or false` }).optional();
/** Lists: `null` clears, as `[]` does (go-tfe sends `[]`; a null from another client means none). */
const paths = (what: string) =>
  z
    .array(z.string().max(1024), { message: `${what} must be a list of strings` })
    .max(1000)
    .nullish()
    .transform((v) => (v === null ? [] : v));

/*
 * What HCP Terraform takes as a workspace's terraform-version: an exact release (major.minor.patch, maybe a
 * pre-release such as 1.10.0-beta1), or a version constraint in Terraform's own syntax (comma-separated
 * `=`, `!=`, `>`, `>=`, `<`, `<=` or `~>` before a version of one to three parts), or "latest". HCP answers
 * an unknown release (go-tfe's tests send "nonexisting") with 422; Boxyard runs no Terraform and keeps no list
 * of releases, so it holds the value to the syntax.
 */
const TF_RELEASE = String.raw`\d{1,6}\.\d{1,6}\.\d{1,6}(?:-[0-9A-Za-z]+(?:\.[0-9A-Za-z]+)*)?`;
const TF_PARTIAL = String.raw`\d{1,6}(?:\.\d{1,6}){0,2}(?:-[0-9A-Za-z]+(?:\.[0-9A-Za-z]+)*)?`;
const TF_ONE = `(?:(?:~>|>=|<=|!=|=|>|<) *${TF_PARTIAL}|${TF_RELEASE})`;
const TF_VERSION = new RegExp(`^(?:latest|${TF_RELEASE}| *${TF_ONE} *(?:, *${TF_ONE} *)*)$`);
export const isTerraformVersion = (v: string): boolean => v.length <= 64 && TF_VERSION.test(v);

export const WorkspaceSettingsAttributes = z.object({
  'allow-destroy-plan': bool('allow-destroy-plan'),
  'assessments-enabled': bool('assessments-enabled'),
  'auto-apply': bool('auto-apply'),
  'auto-apply-run-trigger': bool('auto-apply-run-trigger'),
  'auto-destroy-at': z.iso
    .datetime({
      offset: true,
      message: 'auto-destroy-at must be an ISO 8601 time such as 2030-01-01T00:00:00Z, or null',
    })
    .nullish(),
  'auto-destroy-activity-duration': z
    .string()
    .regex(/^\d{1,4}[dh]$/, 'auto-destroy-activity-duration must be 1-4 digits followed by d or h, such as 14d')
    .nullish(),
  'file-triggers-enabled': bool('file-triggers-enabled'),
  'global-remote-state': bool('global-remote-state'),
  'project-remote-state': bool('project-remote-state'),
  'inherits-project-auto-destroy': bool('inherits-project-auto-destroy'),
  'queue-all-runs': bool('queue-all-runs'),
  'source-name': z.string().max(256).nullish(),
  'source-url': z
    .url({ protocol: /^https?$/, message: 'source-url must be an http or https URL' })
    .max(2048)
    .nullish(),
  'speculative-enabled': bool('speculative-enabled'),
  'structured-run-output-enabled': bool('structured-run-output-enabled'),
  'terraform-version': z
    .string()
    .max(64)
    .refine(
      isTerraformVersion,
      'terraform-version must be a release such as 1.9.5, a constraint such as "~> 1.9" or ">= 1.5.0, < 2.0.0", or "latest"',
    )
    .optional(),
  'trigger-prefixes': paths('trigger-prefixes'),
  'trigger-patterns': paths('trigger-patterns'),
  'working-directory': z
    .string()
    .max(1024)
    .nullish()
    .transform((v) => (v === null ? '' : v)),
});

export const WorkspaceAttributes = WorkspaceSettingsAttributes.extend({
  name: TfcName('name'),
  description: z.string().max(10_000).nullish(),
  'execution-mode': z.enum(EXECUTION_MODES).optional(),
  /** The pool whose agents run it (execution mode `agent`); the tfe provider sends "" for none. */
  'agent-pool-id': z
    .string()
    .max(256)
    .describe(
      "A pool that is not for the whole organization runs only the workspaces it allows: change that on the pool's page.",
    )
    .nullish(),
  /** `false` is the older spelling of execution mode `local`. */
  operations: z.boolean().optional(),
  /**
   * Which settings are the workspace's own (true) or its organization's default (false); a key
   * left out is unchanged. tfe_workspace_settings sends both, tfe_workspace one at a time.
   */
  'setting-overwrites': z
    .strictObject(
      {
        'execution-mode': bool('setting-overwrites.execution-mode'),
        'agent-pool': bool('setting-overwrites.agent-pool'),
      },
      { message: 'setting-overwrites takes only execution-mode and agent-pool' },
    )
    .optional(),
});
export const WorkspaceRelationships = z.object({
  project: ToOneInput('projects').optional(),
  'agent-pool': ToOneInput('agent-pools').optional(),
});
/** `POST /organizations/:org/workspaces` (the name is required: workspaces/schemas.ts). */
export const CreateWorkspaceDocument = ResourceInput(['workspaces'], WorkspaceAttributes, WorkspaceRelationships);
/** `PATCH /workspaces/:id`. */
export const UpdateWorkspaceDocument = ResourceInput(
  ['workspaces'],
  WorkspaceAttributes.partial(),
  WorkspaceRelationships,
);
