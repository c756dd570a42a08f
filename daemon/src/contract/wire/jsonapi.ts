import { z } from 'zod';

/**
 * The HCP Terraform-compatible API's resources the web UI reads (JSON:API under /api/v2: agent
 * pools, their tokens and agents, workspaces) as the daemon sends them: the resource builders of
 * pools/, agents/ and workspaces/ make them. go-tfe and the tfe provider decode the same shapes,
 * so a change here is a change for them too. Pure (zod only): the renderer bundles it.
 */

const time = z.string();

/** JSON:API relationships, as http/jsonapi/document.ts builds them. */
const identifier = <T extends string>(type: T) => z.object({ type: z.literal(type), id: z.string() });
export const toOne = <T extends string>(type: T) => z.object({ data: identifier(type).nullable() });
export const toMany = <T extends string>(type: T) => z.object({ data: z.array(identifier(type)) });
export const related = z.object({ links: z.object({ related: z.string() }) });
const selfLink = z.object({ self: z.string() });

/** One resource as the primary data (`GET`, `POST`, `PATCH` of one). */
export const one = <T extends z.ZodType>(resource: T) => z.object({ data: resource });
/** A page of resources (the document's pagination `links` and `meta` are not read here). */
export const many = <T extends z.ZodType>(resource: T) => z.object({ data: z.array(resource) });

export const AgentPoolJson = z.object({
  type: z.literal('agent-pools'),
  id: z.string(),
  attributes: z.object({
    name: z.string(),
    'created-at': time,
    /** True: every workspace of the organization may use the pool; false: only `allowed-workspaces`. */
    'organization-scoped': z.boolean(),
    /** Agents that are idle, busy or unknown (not errored or exited). */
    'agent-count': z.number(),
  }),
  relationships: z.object({
    organization: toOne('organizations'),
    agents: related,
    'authentication-tokens': related,
    /** Workspaces that run on the pool. */
    workspaces: toMany('workspaces'),
    'allowed-workspaces': toMany('workspaces'),
    'allowed-projects': toMany('projects'),
    'excluded-workspaces': toMany('workspaces'),
  }),
  links: selfLink,
});
export type AgentPoolJson = z.infer<typeof AgentPoolJson>;

export const AgentTokenJson = z.object({
  type: z.literal('authentication-tokens'),
  id: z.string(),
  attributes: z.object({
    description: z.string(),
    'created-at': time,
    'last-used-at': time.nullable(),
    /** The secret: only in the answer to the create request, never again. */
    token: z.string().optional(),
  }),
  relationships: z.object({ 'agent-pool': toOne('agent-pools'), 'created-by': toOne('users') }),
  links: selfLink,
});
export type AgentTokenJson = z.infer<typeof AgentTokenJson>;

export const AGENT_STATUSES = ['idle', 'busy', 'unknown', 'errored', 'exited'] as const;
export type AgentStatus = (typeof AGENT_STATUSES)[number];
/** Agents in these states can be deleted (412 otherwise: agents/service.ts); the others may still be alive. */
export const DELETABLE_AGENT_STATUSES: readonly AgentStatus[] = ['unknown', 'errored', 'exited'];

export const AgentJson = z.object({
  type: z.literal('agents'),
  id: z.string(),
  attributes: z.object({
    name: z.string().nullable(),
    status: z.enum(AGENT_STATUSES),
    'ip-address': z.string(),
    'last-ping-at': time,
  }),
  relationships: z.object({ 'agent-pool': toOne('agent-pools') }),
  links: selfLink,
});
export type AgentJson = z.infer<typeof AgentJson>;

export const EXECUTION_MODES = ['remote', 'local', 'agent'] as const;
export type ExecutionMode = (typeof EXECUTION_MODES)[number];

/** Workspace settings the tfe provider manages: stored and shown back, never acted on (no Terraform runs here). */
const WorkspaceSettingsJson = z.object({
  'allow-destroy-plan': z.boolean(),
  'assessments-enabled': z.boolean(),
  'auto-apply': z.boolean(),
  'auto-apply-run-trigger': z.boolean(),
  'auto-destroy-at': z.string().nullable(),
  'auto-destroy-activity-duration': z.string().nullable(),
  'file-triggers-enabled': z.boolean(),
  'global-remote-state': z.boolean(),
  'project-remote-state': z.boolean(),
  'inherits-project-auto-destroy': z.boolean(),
  'queue-all-runs': z.boolean(),
  'source-name': z.string().nullable(),
  'source-url': z.string().nullable(),
  'speculative-enabled': z.boolean(),
  'structured-run-output-enabled': z.boolean(),
  'terraform-version': z.string(),
  'trigger-prefixes': z.array(z.string()),
  'trigger-patterns': z.array(z.string()),
  'working-directory': z.string(),
});

export const WorkspaceJson = z.object({
  type: z.literal('workspaces'),
  id: z.string(),
  attributes: WorkspaceSettingsJson.extend({
    name: z.string(),
    description: z.string(),
    'execution-mode': z.enum(EXECUTION_MODES),
    /** The pool whose agents run it (execution mode `agent`), else null. */
    'agent-pool-id': z.string().nullable(),
    /** Which of the two are the workspace's own; the others are its organization's defaults. */
    'setting-overwrites': z.object({ 'execution-mode': z.boolean(), 'agent-pool': z.boolean() }),
    operations: z.boolean(),
    'created-at': time,
    'updated-at': time,
    permissions: z.record(z.string(), z.boolean()),
  }),
  relationships: z.object({
    organization: toOne('organizations'),
    project: toOne('projects'),
    'agent-pool': toOne('agent-pools'),
  }),
  links: selfLink,
});
export type WorkspaceJson = z.infer<typeof WorkspaceJson>;

/**
 * An organization as HCP Terraform shows it (`GET /organizations/:name`, orgs/resources.ts): the
 * web UI reads its agent-pool limit and its defaults for new workspaces here.
 */
export const OrganizationJson = z.object({
  type: z.literal('organizations'),
  id: z.string(),
  attributes: z.object({
    name: z.string(),
    email: z.string().nullable(),
    'created-at': time,
    'external-id': z.string(),
    'collaborator-auth-policy': z.string(),
    'cost-estimation-enabled': z.boolean(),
    'enterprise-plan': z.string(),
    'owners-team-saml-role-id': z.string().nullable(),
    'saml-enabled': z.boolean(),
    'session-remember': z.number().nullable(),
    'session-timeout': z.number().nullable(),
    'trial-expires-at': time.nullable(),
    'two-factor-conformant': z.boolean(),
    /** How many agent pools the organization may have (HCP Terraform's plan limit; an owner raises it). */
    'agent-pool-limit': z.number(),
    /** The execution mode of workspaces that do not choose one. */
    'default-execution-mode': z.enum(EXECUTION_MODES),
    permissions: z.record(z.string(), z.boolean()),
  }),
  relationships: z.object({
    'agent-pools': related,
    workspaces: related,
    projects: related,
    /** The pool of workspaces in mode `agent` that name none. */
    'default-agent-pool': toOne('agent-pools'),
  }),
  links: selfLink,
});
export type OrganizationJson = z.infer<typeof OrganizationJson>;
