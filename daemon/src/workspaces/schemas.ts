import { z } from 'zod';
import {
  CreateWorkspaceDocument,
  ResourceInput,
  UpdateWorkspaceDocument,
  type WorkspaceAttributes,
  type WorkspaceRelationships,
  type WorkspaceSettingsAttributes,
} from '../contract/bodies/jsonapi';
import { PageQuery } from '../http/jsonapi/pagination';
import { optionalText } from '../http/params';
import type { WorkspaceSettings } from './settings';
import type { WorkspaceInput } from './service';
import { createBody } from '../http/jsonapi/create-body';

// Workspace and project documents (contract/bodies/jsonapi.ts) → the services' inputs: wire names stay there, here and
// in resources.ts.

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
} as const satisfies Record<keyof z.infer<typeof WorkspaceSettingsAttributes>, keyof WorkspaceSettings>;

function settingsInput(a: Partial<z.infer<typeof WorkspaceSettingsAttributes>>): Partial<WorkspaceSettings> {
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
function workspaceInput(
  a: Partial<z.infer<typeof WorkspaceAttributes>> = {},
  r: z.infer<typeof WorkspaceRelationships> = {},
): WorkspaceInput {
  const fromRel = r['agent-pool'] === undefined ? undefined : (r['agent-pool'].data?.id ?? null);
  const legacyMode = a.operations === undefined ? undefined : a.operations ? 'remote' : 'local';
  return {
    name: a.name,
    description: a.description ?? undefined,
    executionMode: a['execution-mode'] ?? legacyMode,
    agentPoolId: a['agent-pool-id'] !== undefined ? a['agent-pool-id'] : fromRel,
    overwrites: a['setting-overwrites'] && {
      ...(a['setting-overwrites']['execution-mode'] !== undefined
        ? { executionMode: a['setting-overwrites']['execution-mode'] }
        : {}),
      ...(a['setting-overwrites']['agent-pool'] !== undefined
        ? { agentPool: a['setting-overwrites']['agent-pool'] }
        : {}),
    },
    projectId: r.project?.data?.id ?? undefined,
    settings: settingsInput(a),
  };
}
export const WorkspaceCreateBody = createBody(CreateWorkspaceDocument, (a, r) => ({
  ...workspaceInput(a, r),
  name: a.name,
}));
export const WorkspaceUpdateBody = UpdateWorkspaceDocument.transform((b) =>
  workspaceInput(b.data.attributes, b.data.relationships),
);

/** A project's name: the one rule for a new project and a renamed one (the default project's too). */
const ProjectAttributes = z.object({ name: z.string().trim().min(1).max(90) });
export const ProjectCreateBody = createBody(ResourceInput(['projects'], ProjectAttributes, z.object({})), (a) => ({
  name: a.name,
}));
/** `PATCH /projects/:id` (go-tfe's Projects.Update): attributes Boxyard has no setting for are ignored. */
export const ProjectUpdateBody = ResourceInput(['projects'], ProjectAttributes.partial(), z.object({})).transform(
  (b) => ({ name: b.data.attributes?.name }),
);

export const WorkspaceListQuery = PageQuery.extend({ 'search[name]': optionalText(256), include: optionalText(256) });
