import { useEffect, useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { listPools } from '../api/agents';
import { useSession } from '../api/session';
import { createWorkspace, deleteWorkspace, listWorkspaces, setWorkspacePool } from '../api/workspaces';
import type { AgentPoolJson, WorkspaceJson } from '../../../daemon/src/contract/wire/jsonapi';
import { ErrorNote, Loading, Section, confirmed, useAction } from './ui';
import { queryKeys } from '../api/query-keys';
import { WorkspaceCloudBlock } from './workspace-cloud-block';
import { useServerAccess } from '../api/server-access';
import { TrustStep } from './trust-step';
import { TFC_NAME } from '../../../daemon/src/contract/bodies/jsonapi';

/** Where a run goes, in words: an agent pool by name, or the server (HCP's remote) or the user's machine (local). */
const runsOn = (mode: string, pool: string | null) =>
  pool ? `agent pool ${pool}` : mode === 'local' ? "the user's machine (local)" : 'the server (remote)';

/**
 * A workspace and where its runs go: the organization's choice, the server (or the user's machine) or a pool,
 * chosen in the select and saved with its button, as the organization's settings above it are.
 */
function WorkspaceRow({ org, workspace: w, pools }: { org: string; workspace: WorkspaceJson; pools: AgentPoolJson[] }) {
  const { api } = useSession();
  const keys = [queryKeys.workspaces(org), queryKeys.pools(org)];
  const ow = w.attributes['setting-overwrites'];
  const inherited = !ow['execution-mode'] && !ow['agent-pool'];
  const current = inherited ? 'default' : (w.attributes['agent-pool-id'] ?? '');
  const [choice, setChoice] = useState(current);
  useEffect(() => setChoice(current), [current]);
  const assign = useAction(() => setWorkspacePool(api, w.id, choice === 'default' ? 'default' : choice || null), keys);
  const remove = useAction(() => deleteWorkspace(api, w.id), keys);
  const poolName = (id: string | null) => (id ? (pools.find((p) => p.id === id)?.attributes.name ?? id) : null);
  const now = runsOn(w.attributes['execution-mode'], poolName(w.attributes['agent-pool-id']));
  const save = (e: FormEvent) => {
    e.preventDefault();
    assign.mutate(undefined);
  };
  return (
    <tr>
      <td>
        {w.attributes.name}
        <WorkspaceCloudBlock org={org} workspace={w.attributes.name} />
      </td>
      <td>
        <form className="inline" onSubmit={save} aria-label={`Where runs of ${w.attributes.name} go`}>
          <select
            aria-label={`Agent pool of ${w.attributes.name}`}
            value={choice}
            onChange={(e) => setChoice(e.target.value)}
          >
            <option value="default">as the organization decides{inherited ? ` (now ${now})` : ''}</option>
            <option value="">
              {runsOn(w.attributes['execution-mode'] === 'local' && !inherited ? 'local' : 'remote', null)}
            </option>
            {pools.map((p) => (
              <option key={p.id} value={p.id}>
                agent pool {p.attributes.name}
              </option>
            ))}
          </select>
          {choice !== current && (
            <button type="submit" className="small" disabled={assign.isPending}>
              Save
            </button>
          )}
        </form>
        <span className="muted">
          {inherited
            ? 'inherited from the organization'
            : ow['execution-mode'] && ow['agent-pool']
              ? 'its own'
              : `its own ${ow['execution-mode'] ? 'mode' : 'pool'}, the organization's ${ow['execution-mode'] ? 'pool' : 'mode'}`}
        </span>
        <ErrorNote error={assign.error ?? remove.error} />
      </td>
      <td>
        <button
          type="button"
          className="danger small"
          onClick={() => confirmed(`Delete workspace ${w.attributes.name}`) && remove.mutate(undefined)}
        >
          Delete
        </button>
      </td>
    </tr>
  );
}

/** An organization's workspaces, and which agent pool (if any) runs each one. */
export function Workspaces({ org }: { org: string }) {
  const { api } = useSession();
  const key = queryKeys.workspaces(org);
  const workspaces = useQuery({ queryKey: key, queryFn: () => listWorkspaces(api, org) });
  const pools = useQuery({ queryKey: queryKeys.pools(org), queryFn: () => listPools(api, org) });
  const access = useServerAccess();
  const [name, setName] = useState('');
  const create = useAction(
    () => createWorkspace(api, org, name),
    [key],
    () => setName(''),
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(undefined);
  };
  const form = (
    <form className="inline" onSubmit={submit} aria-label="New workspace">
      <label>
        Workspace name
        <input
          name="workspace_name"
          placeholder="Workspace name"
          value={name}
          onChange={(e) => setName(e.target.value)}
          required
          pattern={TFC_NAME.pattern}
          maxLength={TFC_NAME.max}
          title={TFC_NAME.words}
        />
      </label>
      <button type="submit" disabled={create.isPending}>
        Create workspace
      </button>
    </form>
  );
  return (
    <Section title="Workspaces" actions={form}>
      <p className="muted">
        A workspace is one Terraform configuration's place on this server, as in HCP Terraform: Terraform names it in
        its <code>cloud {'{}'}</code> block, and it is assigned the agent pool chosen here.
      </p>
      <ErrorNote error={create.error ?? pools.error} />
      {workspaces.isLoading ? <Loading what="workspaces" /> : <ErrorNote error={workspaces.error} />}
      {workspaces.data?.length === 0 && <p className="muted">No workspaces yet.</p>}
      {workspaces.data && workspaces.data.length > 0 && (
        <TrustStep server={access.server} fingerprint={access.fingerprint} what="Terraform uses a workspace" />
      )}
      {workspaces.data && workspaces.data.length > 0 && (
        <table>
          <thead>
            <tr>
              <th>Workspace</th>
              <th>Runs on</th>
              <th>Change</th>
            </tr>
          </thead>
          <tbody>
            {workspaces.data.map((w) => (
              <WorkspaceRow key={w.id} org={org} workspace={w} pools={pools.data ?? []} />
            ))}
          </tbody>
        </table>
      )}
    </Section>
  );
}
