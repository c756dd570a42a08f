import { useEffect, useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { listPools } from '../api/agents';
import { useSession } from '../api/session';
import { getOrganizationSettings, updateOrganizationSettings } from '../api/organization-settings';
import { queryKeys } from '../api/query-keys';
import { EXECUTION_MODES, type ExecutionMode, type OrganizationJson } from '../../../daemon/src/contract/wire/jsonapi';
import { ErrorNote, Loading, Section, useAction } from './ui';

const MODE_WORDS: Record<ExecutionMode, string> = {
  remote: 'remote (on the server)',
  local: "local (on the user's machine)",
  agent: 'agent (on an agent pool)',
};

interface Draft {
  limit: string;
  mode: ExecutionMode;
  poolId: string;
}
const draftOf = (o: OrganizationJson): Draft => ({
  limit: String(o.attributes['agent-pool-limit']),
  mode: o.attributes['default-execution-mode'],
  poolId: o.relationships['default-agent-pool'].data?.id ?? '',
});

/**
 * An organization's agent-pool limit and its defaults for new workspaces (execution mode and
 * agent pool), as HCP Terraform's organization carries them. Owners change them; members see them.
 */
export function OrganizationAgentSettings({ org }: { org: string }) {
  const { api } = useSession();
  const settings = useQuery({
    queryKey: queryKeys.organizationSettings(org),
    queryFn: () => getOrganizationSettings(api, org),
  });
  const pools = useQuery({ queryKey: queryKeys.pools(org), queryFn: () => listPools(api, org) });
  const [draft, setDraft] = useState<Draft | null>(null);
  useEffect(() => {
    if (settings.data) setDraft(draftOf(settings.data));
  }, [settings.data]);
  const save = useAction(
    (d: Draft) =>
      updateOrganizationSettings(api, org, {
        agentPoolLimit: Number(d.limit),
        defaultExecutionMode: d.mode,
        // A default pool goes with mode agent only (the API refuses it otherwise).
        defaultAgentPoolId: d.mode === 'agent' ? d.poolId || null : null,
      }),
    [queryKeys.organization(org)],
  );
  if (settings.isLoading) return <Loading what="agent settings" />;
  if (!settings.data || !draft) return <ErrorNote error={settings.error} />;
  const canUpdate = settings.data.attributes.permissions['can-update'] === true;
  const set = (patch: Partial<Draft>) => setDraft({ ...draft, ...patch });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate(draft);
  };
  const poolCount = pools.data?.length;
  return (
    <Section title="Agent pools and defaults">
      <form className="inline" onSubmit={submit} aria-label="Agent settings">
        <label>
          Agent-pool limit
          <input
            name="agent_pool_limit"
            type="number"
            min={0}
            max={10000}
            required
            value={draft.limit}
            disabled={!canUpdate}
            onChange={(e) => set({ limit: e.target.value })}
          />
        </label>
        <label>
          Default execution mode
          <select
            name="default_execution_mode"
            value={draft.mode}
            disabled={!canUpdate}
            onChange={(e) => set({ mode: e.target.value as ExecutionMode })}
          >
            {EXECUTION_MODES.map((m) => (
              <option key={m} value={m}>
                {MODE_WORDS[m]}
              </option>
            ))}
          </select>
        </label>
        <label>
          Default agent pool
          <select
            name="default_agent_pool"
            value={draft.mode === 'agent' ? draft.poolId : ''}
            disabled={!canUpdate || draft.mode !== 'agent'}
            onChange={(e) => set({ poolId: e.target.value })}
          >
            <option value="">none</option>
            {(pools.data ?? []).map((p) => (
              <option key={p.id} value={p.id}>
                {p.attributes.name}
              </option>
            ))}
          </select>
        </label>
        {canUpdate && (
          <button type="submit" disabled={save.isPending}>
            Save agent settings
          </button>
        )}
      </form>
      <p className="muted">
        {poolCount === undefined
          ? ''
          : `${org} has ${poolCount} of at most ${settings.data.attributes['agent-pool-limit']} agent pools. `}
        {canUpdate
          ? 'New workspaces run as the defaults say unless they choose otherwise.'
          : 'Only owners change these.'}
      </p>
      <ErrorNote error={save.error ?? pools.error} />
    </Section>
  );
}
