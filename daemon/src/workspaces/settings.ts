import type { Updateable } from 'kysely';
import type { WorkspacesTable } from './tables';
import type { WorkspaceRow } from './repository';

/**
 * Workspace settings the tfe provider manages (tfe_workspace, tfe_workspace_settings). Boxyard runs
 * no Terraform, so it only stores them and shows them back: the provider plans a change for every
 * attribute that does not echo what it sent. Defaults are HCP Terraform's and live in the columns'
 * DEFAULTs (005-workspace-settings.sql).
 */
export interface WorkspaceSettings {
  allowDestroyPlan: boolean;
  assessmentsEnabled: boolean;
  autoApply: boolean;
  autoApplyRunTrigger: boolean;
  /** ISO 8601 as the client sent it, or null. */
  autoDestroyAt: string | null;
  /** `<1-4 digits>d|h`, or null. */
  autoDestroyActivityDuration: string | null;
  fileTriggersEnabled: boolean;
  globalRemoteState: boolean;
  projectRemoteState: boolean;
  inheritsProjectAutoDestroy: boolean;
  queueAllRuns: boolean;
  sourceName: string | null;
  sourceUrl: string | null;
  speculativeEnabled: boolean;
  structuredRunOutputEnabled: boolean;
  terraformVersion: string;
  triggerPrefixes: string[];
  triggerPatterns: string[];
  workingDirectory: string;
}

type Column = keyof WorkspacesTable;
const BOOLEAN = {
  allowDestroyPlan: 'allow_destroy_plan',
  assessmentsEnabled: 'assessments_enabled',
  autoApply: 'auto_apply',
  autoApplyRunTrigger: 'auto_apply_run_trigger',
  fileTriggersEnabled: 'file_triggers_enabled',
  globalRemoteState: 'global_remote_state',
  projectRemoteState: 'project_remote_state',
  inheritsProjectAutoDestroy: 'inherits_project_auto_destroy',
  queueAllRuns: 'queue_all_runs',
  speculativeEnabled: 'speculative_enabled',
  structuredRunOutputEnabled: 'structured_run_output_enabled',
} as const satisfies Partial<Record<keyof WorkspaceSettings, Column>>;
const TEXT = {
  autoDestroyAt: 'auto_destroy_at',
  autoDestroyActivityDuration: 'auto_destroy_activity_duration',
  sourceName: 'source_name',
  sourceUrl: 'source_url',
  terraformVersion: 'terraform_version',
  workingDirectory: 'working_directory',
} as const satisfies Partial<Record<keyof WorkspaceSettings, Column>>;
const LIST = { triggerPrefixes: 'trigger_prefixes', triggerPatterns: 'trigger_patterns' } as const satisfies Partial<
  Record<keyof WorkspaceSettings, Column>
>;

const entries = <T extends object>(o: T) => Object.entries(o) as Array<[keyof T & keyof WorkspaceSettings, Column]>;

/** Domain → columns, for the keys present in `s` (absent: unchanged). */
export function settingsColumns(s: Partial<WorkspaceSettings>): Updateable<WorkspacesTable> {
  const out: Record<string, unknown> = {};
  for (const [key, col] of entries(BOOLEAN)) if (s[key] !== undefined) out[col] = s[key] ? 1 : 0;
  for (const [key, col] of entries(TEXT)) if (s[key] !== undefined) out[col] = s[key];
  for (const [key, col] of entries(LIST)) if (s[key] !== undefined) out[col] = JSON.stringify(s[key]);
  return out as Updateable<WorkspacesTable>;
}

/** Columns → domain. */
export function settingsOf(row: WorkspaceRow): WorkspaceSettings {
  const out: Record<string, unknown> = {};
  for (const [key, col] of entries(BOOLEAN)) out[key] = row[col] === 1;
  for (const [key, col] of entries(TEXT)) out[key] = row[col];
  for (const [key, col] of entries(LIST)) out[key] = JSON.parse(String(row[col])) as string[];
  return out as unknown as WorkspaceSettings;
}

/**
 * HCP Terraform refuses trigger prefixes and trigger patterns together. The tfe provider, switching
 * from one to the other, sends only the new list (the other is left out as nil), so a non-empty
 * list in a request clears the other list unless the request sets both.
 */
export function withTriggerRule(
  current: Pick<WorkspaceSettings, 'triggerPrefixes' | 'triggerPatterns'>,
  input: Partial<WorkspaceSettings>,
) {
  const patch = { ...input };
  if (input.triggerPatterns?.length && input.triggerPrefixes === undefined && current.triggerPrefixes.length)
    patch.triggerPrefixes = [];
  if (input.triggerPrefixes?.length && input.triggerPatterns === undefined && current.triggerPatterns.length)
    patch.triggerPatterns = [];
  const prefixes = patch.triggerPrefixes ?? current.triggerPrefixes;
  const patterns = patch.triggerPatterns ?? current.triggerPatterns;
  return { patch, conflict: prefixes.length > 0 && patterns.length > 0 };
}

/** A new workspace's current trigger lists: the columns' defaults. */
export const NO_TRIGGERS = { triggerPrefixes: [] as string[], triggerPatterns: [] as string[] };
