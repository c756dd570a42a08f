import type { PoolView } from './repository';

export interface WorkspaceRef {
  id: string;
  organization_id: string;
  project_id: string;
}

/**
 * A workspace may use pool P when it is in P's organization, is not excluded, and P is
 * organization-scoped or lists the workspace or its project (HCP Terraform's rule).
 */
export function mayUse(
  pool: Pick<
    PoolView,
    | 'organization_id'
    | 'organization_scoped'
    | 'allowed_workspace_ids'
    | 'allowed_project_ids'
    | 'excluded_workspace_ids'
  >,
  ws: WorkspaceRef,
): boolean {
  if (ws.organization_id !== pool.organization_id) return false;
  if (pool.excluded_workspace_ids.includes(ws.id)) return false;
  return (
    pool.organization_scoped === 1 ||
    pool.allowed_workspace_ids.includes(ws.id) ||
    pool.allowed_project_ids.includes(ws.project_id)
  );
}
