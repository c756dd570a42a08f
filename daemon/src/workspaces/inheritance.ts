import type { ExecutionMode } from '../contract/wire/jsonapi';

/**
 * Which of a workspace's execution settings are its own (HCP Terraform's `setting-overwrites`); the others come from
 * its organization.
 */
export interface Overwrites {
  executionMode: boolean;
  agentPool: boolean;
}

/** An organization's defaults (tfe_organization_default_settings). */
export interface Defaults {
  mode: ExecutionMode;
  poolId: string | null;
}

export interface Execution {
  mode: ExecutionMode;
  poolId: string | null;
}

/**
 * What a workspace runs with: its own mode and pool where overwritten, its organization's default
 * elsewhere; a pool only in agent mode. One copy of the rule for a workspace's change and for a
 * change of its organization's defaults.
 */
export function effective(own: Execution, ow: Overwrites, d: Defaults): Execution {
  const mode = ow.executionMode ? own.mode : d.mode;
  if (mode !== 'agent') return { mode, poolId: null };
  return { mode, poolId: ow.agentPool ? own.poolId : d.poolId };
}

/**
 * The overwrites after a change: an explicit `setting-overwrites` value wins (false returns the
 * setting to the default, even beside a literal value, as tfe_workspace_settings sends
 * `execution-mode: remote` with `{execution-mode: false}` when it has no mode); otherwise a literal
 * value makes the setting the workspace's own.
 */
export function overwritesAfter(
  current: Overwrites,
  input: { executionMode?: unknown; agentPoolId?: unknown; overwrites?: Partial<Overwrites> },
): Overwrites {
  return {
    executionMode:
      input.overwrites?.executionMode ?? (input.executionMode !== undefined ? true : current.executionMode),
    agentPool: input.overwrites?.agentPool ?? (input.agentPoolId !== undefined ? true : current.agentPool),
  };
}
