import { describe, expect, it } from 'vitest';
import { effective, overwritesAfter, type Defaults, type Execution, type Overwrites } from './inheritance';

const OWN_BOTH: Overwrites = { executionMode: true, agentPool: true };
const OWN_NONE: Overwrites = { executionMode: false, agentPool: false };
const OWN_MODE: Overwrites = { executionMode: true, agentPool: false };
const OWN_POOL: Overwrites = { executionMode: false, agentPool: true };

const ownAgent: Execution = { mode: 'agent', poolId: 'apool-own' };
const ownRemote: Execution = { mode: 'remote', poolId: null };
const orgAgent: Defaults = { mode: 'agent', poolId: 'apool-org' };
const orgRemote: Defaults = { mode: 'remote', poolId: null };

describe("a workspace's effective execution mode and pool", () => {
  it('takes its own settings where they are overwritten, whatever the organization says', () => {
    expect(effective(ownAgent, OWN_BOTH, orgRemote)).toEqual({ mode: 'agent', poolId: 'apool-own' });
    expect(effective(ownRemote, OWN_BOTH, orgAgent)).toEqual({ mode: 'remote', poolId: null });
  });

  it("takes the organization's defaults where nothing is its own, whatever it held before", () => {
    expect(effective(ownRemote, OWN_NONE, orgAgent)).toEqual({ mode: 'agent', poolId: 'apool-org' });
    expect(effective(ownAgent, OWN_NONE, orgRemote)).toEqual({ mode: 'remote', poolId: null });
    expect(effective(ownAgent, OWN_NONE, { mode: 'local', poolId: null })).toEqual({ mode: 'local', poolId: null });
  });

  it('its own mode with the default pool, or the default mode with its own pool', () => {
    expect(effective(ownAgent, OWN_MODE, orgAgent)).toEqual({ mode: 'agent', poolId: 'apool-org' });
    expect(effective({ mode: 'remote', poolId: 'apool-own' }, OWN_POOL, orgAgent)).toEqual({
      mode: 'agent',
      poolId: 'apool-own',
    });
  });

  it('has a pool only in agent mode, even one it owns or one the organization names', () => {
    expect(effective(ownAgent, OWN_POOL, { mode: 'local', poolId: 'apool-org' })).toEqual({
      mode: 'local',
      poolId: null,
    });
    expect(effective({ mode: 'remote', poolId: 'apool-own' }, OWN_BOTH, orgAgent)).toEqual({
      mode: 'remote',
      poolId: null,
    });
    expect(effective(ownRemote, OWN_MODE, orgAgent)).toEqual({ mode: 'remote', poolId: null });
  });

  it('in its own agent mode without a default pool, it has none (the service refuses that change)', () => {
    expect(effective(ownAgent, OWN_MODE, orgRemote)).toEqual({ mode: 'agent', poolId: null });
  });
});

describe("which settings are the workspace's own after a change", () => {
  it('a change that names neither keeps what was its own', () => {
    expect(overwritesAfter(OWN_MODE, {})).toEqual(OWN_MODE);
    expect(overwritesAfter(OWN_POOL, { overwrites: {} })).toEqual(OWN_POOL);
  });

  it('a literal value makes that setting its own, and only that one; a null pool is a value', () => {
    expect(overwritesAfter(OWN_NONE, { executionMode: 'remote' })).toEqual(OWN_MODE);
    expect(overwritesAfter(OWN_NONE, { agentPoolId: 'apool-1' })).toEqual(OWN_POOL);
    expect(overwritesAfter(OWN_NONE, { agentPoolId: null })).toEqual(OWN_POOL);
  });

  it('an explicit setting-overwrites wins over a literal value beside it, either way', () => {
    // tfe_workspace_settings without a mode sends `execution-mode: remote` with `{execution-mode: false}`.
    expect(overwritesAfter(OWN_BOTH, { executionMode: 'remote', overwrites: { executionMode: false } })).toEqual(
      OWN_POOL,
    );
    expect(overwritesAfter(OWN_NONE, { overwrites: { executionMode: true, agentPool: true } })).toEqual(OWN_BOTH);
    expect(overwritesAfter(OWN_BOTH, { agentPoolId: 'apool-1', overwrites: { agentPool: false } })).toEqual(OWN_MODE);
  });

  it('an explicit value for one setting leaves the other to its literal value or what it was', () => {
    expect(overwritesAfter(OWN_NONE, { executionMode: 'agent', overwrites: { agentPool: false } })).toEqual(OWN_MODE);
    expect(overwritesAfter(OWN_BOTH, { overwrites: { agentPool: false } })).toEqual(OWN_MODE);
  });
});
