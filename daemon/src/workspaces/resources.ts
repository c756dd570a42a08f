import type { Resource } from '../http/jsonapi/document';
import { toOne } from '../http/jsonapi/document';
import type { ProjectRow, WorkspaceRow } from './repository';
import { WORKSPACE_SETTING_ATTRIBUTES } from './schemas';
import { settingsOf } from './settings';
import { TFC } from '../http/route-table';
import { pathTo } from '../http/urls';

export function projectResource(p: ProjectRow, orgName: string): Resource {
  return {
    type: 'projects',
    id: p.id,
    attributes: { name: p.name, 'created-at': p.created_at, 'is-default': p.is_default === 1 },
    relationships: { organization: toOne('organizations', orgName) },
    links: { self: pathTo('v2', TFC.project, { id: p.id }) },
  };
}

/**
 * Every member who sees a workspace may change and delete it; Boxyard runs no Terraform, so the
 * run, lock and variable permissions are false. terraform-provider-tfe (resource_tfe_workspace.go
 * since its safe-delete support, read at commit 01a4069d) dereferences `permissions.can-force-delete`
 * when destroying a tfe_workspace: without `permissions` the provider panics.
 */
const WORKSPACE_PERMISSIONS = {
  'can-destroy': true,
  'can-force-delete': true,
  'can-force-unlock': false,
  'can-lock': false,
  'can-manage-run-tasks': false,
  'can-queue-apply': false,
  'can-queue-destroy': false,
  'can-queue-run': false,
  'can-read-settings': true,
  'can-unlock': false,
  'can-update': true,
  'can-update-variable': false,
} as const;

export function workspaceResource(w: WorkspaceRow, orgName: string): Resource {
  return {
    type: 'workspaces',
    id: w.id,
    attributes: {
      name: w.name,
      description: w.description,
      'execution-mode': w.execution_mode,
      'agent-pool-id': w.agent_pool_id,
      // Both keys always: terraform-provider-tfe dereferences each (resource_tfe_workspace_settings.go).
      'setting-overwrites': {
        'execution-mode': w.execution_mode_overwritten === 1,
        'agent-pool': w.agent_pool_overwritten === 1,
      },
      operations: w.execution_mode !== 'local',
      'created-at': w.created_at,
      'updated-at': w.updated_at,
      ...settingAttributes(w),
      permissions: WORKSPACE_PERMISSIONS,
    },
    relationships: {
      organization: toOne('organizations', orgName),
      project: toOne('projects', w.project_id),
      'agent-pool': toOne('agent-pools', w.agent_pool_id),
    },
    links: { self: pathTo('v2', TFC.workspace, { id: w.id }) },
  };
}

/** Every stored setting under its wire name (the table the request schema reads with). */
function settingAttributes(w: WorkspaceRow): Record<string, unknown> {
  const settings = settingsOf(w);
  return Object.fromEntries(Object.entries(WORKSPACE_SETTING_ATTRIBUTES).map(([wire, key]) => [wire, settings[key]]));
}
