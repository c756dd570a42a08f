import type { z } from 'zod';
import { apiPath, type Fetcher } from './client';
import { load } from './load';
import { OrganizationJson, one, type ExecutionMode } from '../../../daemon/src/contract/wire/jsonapi';
import type { UpdateOrganizationDocument } from '../../../daemon/src/contract/bodies/jsonapi';

// An organization's agent settings as HCP Terraform shows them (JSON:API under /api/v2): the
// agent-pool limit and the defaults for new workspaces, which Boxyard's own organization answer
// (api/accounts.ts) does not carry.

const path = (name: string) => apiPath('/api/v2/organizations', name);

export const getOrganizationSettings = (api: Fetcher, name: string) =>
  load(api, one(OrganizationJson), path(name), { jsonapi: true }).then((r) => r.data);

export interface OrganizationSettingsPatch {
  agentPoolLimit?: number;
  defaultExecutionMode?: ExecutionMode;
  /** null: no default pool. */
  defaultAgentPoolId?: string | null;
}

/** Owners only (403 `forbidden` for a member). Absent fields stay as they are. */
export const updateOrganizationSettings = (api: Fetcher, name: string, p: OrganizationSettingsPatch) =>
  load(api, one(OrganizationJson), path(name), {
    jsonapi: true,
    method: 'PATCH',
    body: {
      data: {
        type: 'organizations',
        attributes: {
          ...(p.agentPoolLimit !== undefined ? { 'agent-pool-limit': p.agentPoolLimit } : {}),
          ...(p.defaultExecutionMode !== undefined ? { 'default-execution-mode': p.defaultExecutionMode } : {}),
        },
        ...(p.defaultAgentPoolId !== undefined
          ? {
              relationships: {
                'default-agent-pool': {
                  data: p.defaultAgentPoolId ? { type: 'agent-pools' as const, id: p.defaultAgentPoolId } : null,
                },
              },
            }
          : {}),
      },
    } satisfies z.input<typeof UpdateOrganizationDocument>,
  }).then((r) => r.data);
