import { z } from 'zod';
import { ResourceInput, ToOneInput } from '../http/jsonapi/request';
import { PageQuery } from '../http/jsonapi/pagination';
import { optionalText } from '../http/params';
import type { WorkspaceSettings } from './settings';
import type { WorkspaceInput } from './service';

/** Pool, workspace and project names: identifiers, as HCP Terraform allows them. */
export const Identifier = (what: string) =>
  z.string().min(1, `${what} must not be empty`).max(90, `${what} must be at most 90 characters`)
    .regex(/^[A-Za-z0-9_-]+$/, `${what} may contain only letters, numbers, "-" and "_"`);

/*
 * Workspace bodies, wire → domain. The settings are what go-tfe's WorkspaceCreateOptions and
 * WorkspaceUpdateOptions carry and terraform-provider-tfe's tfe_workspace / tfe_workspace_settings
 * send and read back (go-tfe workspace.go, provider resource_tfe_workspace.go and
 * resource_tfe_workspace_settings.go at 01a4069d / 06283ee1). Absent: unchanged; wrong types: 422.
 */

const bool = (what: string) => z.boolean({ message: `${what} must be true or false` }).optional();
/** Lists: `null` clears, as `[]` does (go-tfe sends `[]`; a null from another client means none). */
const paths = (what: string) => z.array(z.string().max(1024), { message: `${what} must be a list of strings` }).max(1000)
  .nullish().transform((v) => (v === null ? [] : v));

const SettingsAttributes = z.object({
  'allow-destroy-plan': bool('allow-destroy-plan'),
  'assessments-enabled': bool('assessments-enabled'),
  'auto-apply': bool('auto-apply'),
  'auto-apply-run-trigger': bool('auto-apply-run-trigger'),
  'auto-destroy-at': z.iso.datetime({ offset: true, message: 'auto-destroy-at must be an ISO 8601 time such as 2030-01-01T00:00:00Z, or null' }).nullish(),
  'auto-destroy-activity-duration': z.string().regex(/^\d{1,4}[dh]$/, 'auto-destroy-activity-duration must be 1-4 digits followed by d or h, such as 14d').nullish(),
  'file-triggers-enabled': bool('file-triggers-enabled'),
  'global-remote-state': bool('global-remote-state'),
  'project-remote-state': bool('project-remote-state'),
  'inherits-project-auto-destroy': bool('inherits-project-auto-destroy'),
  'queue-all-runs': bool('queue-all-runs'),
  'source-name': z.string().max(256).nullish(),
  'source-url': z.url({ protocol: /^https?$/, message: 'source-url must be an http or https URL' }).max(2048).nullish(),
  'speculative-enabled': bool('speculative-enabled'),
  'structured-run-output-enabled': bool('structured-run-output-enabled'),
  'terraform-version': z.string().min(1).max(64).regex(/^[\w.~<>=!, -]+$/, 'terraform-version must be a version such as 1.9.5, a constraint such as "~> 1.9", or "latest"').optional(),
  'trigger-prefixes': paths('trigger-prefixes'),
  'trigger-patterns': paths('trigger-patterns'),
  'working-directory': z.string().max(1024).nullish().transform((v) => (v === null ? '' : v)),
});

/** Wire attribute → domain setting; resources.ts serializes with the same table. */
export const WORKSPACE_SETTING_ATTRIBUTES = {
  'allow-destroy-plan': 'allowDestroyPlan',
  'assessments-enabled': 'assessmentsEnabled',
  'auto-apply': 'autoApply',
  'auto-apply-run-trigger': 'autoApplyRunTrigger',
  'auto-destroy-at': 'autoDestroyAt',
  'auto-destroy-activity-duration': 'autoDestroyActivityDuration',
  'file-triggers-enabled': 'fileTriggersEnabled',
  'global-remote-state': 'globalRemoteState',
  'project-remote-state': 'projectRemoteState',
  'inherits-project-auto-destroy': 'inheritsProjectAutoDestroy',
  'queue-all-runs': 'queueAllRuns',
  'source-name': 'sourceName',
  'source-url': 'sourceUrl',
  'speculative-enabled': 'speculativeEnabled',
  'structured-run-output-enabled': 'structuredRunOutputEnabled',
  'terraform-version': 'terraformVersion',
  'trigger-prefixes': 'triggerPrefixes',
  'trigger-patterns': 'triggerPatterns',
  'working-directory': 'workingDirectory',
} as const satisfies Record<keyof z.infer<typeof SettingsAttributes>, keyof WorkspaceSettings>;

const WorkspaceAttributes = SettingsAttributes.extend({
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

function settingsInput(a: Partial<z.infer<typeof SettingsAttributes>>): Partial<WorkspaceSettings> {
  const out: Record<string, unknown> = {};
  for (const [wire, key] of Object.entries(WORKSPACE_SETTING_ATTRIBUTES)) {
    const v = a[wire as keyof typeof a];
    if (v !== undefined) out[key] = v;
  }
  return out as Partial<WorkspaceSettings>;
}

/**
 * The pool comes from `agent-pool-id` (the tfe provider sends "" for none) or
 * `relationships.agent-pool`; `operations: false` is the older spelling of execution-mode local.
 */
function workspaceInput(a: Partial<z.infer<typeof WorkspaceAttributes>> = {}, r: z.infer<typeof WorkspaceRelationships> = {}): WorkspaceInput {
  const fromRel = r['agent-pool'] === undefined ? undefined : r['agent-pool'].data?.id ?? null;
  const legacyMode = a.operations === undefined ? undefined : a.operations ? 'remote' : 'local';
  return {
    name: a.name,
    description: a.description ?? undefined,
    executionMode: a['execution-mode'] ?? legacyMode,
    agentPoolId: a['agent-pool-id'] !== undefined ? a['agent-pool-id'] : fromRel,
    projectId: r.project?.data?.id ?? undefined,
    settings: settingsInput(a),
  };
}
export const WorkspaceCreateBody = ResourceInput(['workspaces'], WorkspaceAttributes, WorkspaceRelationships)
  .refine((b) => b.data.attributes !== undefined, { message: 'data.attributes.name is required', path: ['data', 'attributes', 'name'] })
  .transform((b) => ({ ...workspaceInput(b.data.attributes, b.data.relationships), name: b.data.attributes!.name }));
export const WorkspaceUpdateBody = ResourceInput(['workspaces'], WorkspaceAttributes.partial(), WorkspaceRelationships)
  .transform((b) => workspaceInput(b.data.attributes, b.data.relationships));

export const ProjectCreateBody = ResourceInput(['projects'], z.object({ name: z.string().trim().min(1).max(90) }), z.object({}))
  .refine((b) => b.data.attributes !== undefined, { message: 'data.attributes.name is required', path: ['data', 'attributes', 'name'] })
  .transform((b) => ({ name: b.data.attributes!.name }));

export const WorkspaceListQuery = PageQuery.extend({ 'search[name]': optionalText(256) });
