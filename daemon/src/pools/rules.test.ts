import { describe, expect, it } from 'vitest';
import { mayUse } from './rules';

const pool = {
  organization_id: 'org-1',
  organization_scoped: 0,
  allowed_workspace_ids: [] as string[],
  allowed_project_ids: [] as string[],
  excluded_workspace_ids: [] as string[],
};
const ws = { id: 'ws-1', organization_id: 'org-1', project_id: 'prj-1' };

describe('mayUse', () => {
  it('allows every workspace of the organization for an organization-scoped pool', () => {
    expect(mayUse({ ...pool, organization_scoped: 1 }, ws)).toBe(true);
  });
  it('never allows a workspace of another organization', () => {
    expect(mayUse({ ...pool, organization_scoped: 1 }, { ...ws, organization_id: 'org-2' })).toBe(false);
  });
  it('allows listed workspaces and workspaces of listed projects of a scoped pool only', () => {
    expect(mayUse(pool, ws)).toBe(false);
    expect(mayUse({ ...pool, allowed_workspace_ids: ['ws-1'] }, ws)).toBe(true);
    expect(mayUse({ ...pool, allowed_project_ids: ['prj-1'] }, ws)).toBe(true);
  });
  it('lets an exclusion win over organization scope and allow lists', () => {
    expect(
      mayUse(
        { ...pool, organization_scoped: 1, allowed_workspace_ids: ['ws-1'], excluded_workspace_ids: ['ws-1'] },
        ws,
      ),
    ).toBe(false);
  });
});
