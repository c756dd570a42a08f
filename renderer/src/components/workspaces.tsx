import { useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { listPools } from '../api/agents';
import { useSession } from '../api/session';
import { createWorkspace, deleteWorkspace, listWorkspaces, setWorkspacePool } from '../api/workspaces';
import { ErrorNote, Loading, Section, confirmed, useAction } from './ui';

/** An organization's workspaces, and which agent pool (if any) runs each one. */
export function Workspaces({ org }: { org: string }) {
  const { api } = useSession();
  const key = ['workspaces', org];
  const workspaces = useQuery({ queryKey: key, queryFn: () => listWorkspaces(api, org) });
  const pools = useQuery({ queryKey: ['pools', org], queryFn: () => listPools(api, org) });
  const [name, setName] = useState('');
  const create = useAction(() => createWorkspace(api, org, name), [key], () => setName(''));
  const assign = useAction((a: { id: string; poolId: string | null }) => setWorkspacePool(api, a.id, a.poolId), [key, ['pools', org]]);
  const remove = useAction((id: string) => deleteWorkspace(api, id), [key, ['pools', org]]);
  const submit = (e: FormEvent) => { e.preventDefault(); create.mutate(undefined); };
  const form = (
    <form className="inline" onSubmit={submit} aria-label="New workspace">
      <input name="workspace_name" placeholder="Workspace name" value={name} onChange={(e) => setName(e.target.value)} required pattern="[A-Za-z0-9_-]+" title="letters, digits, - and _" />
      <button type="submit" disabled={create.isPending}>Create workspace</button>
    </form>
  );
  return (
    <Section title="Workspaces" actions={form}>
      <ErrorNote error={create.error ?? assign.error ?? remove.error ?? pools.error} />
      {workspaces.isLoading ? <Loading what="workspaces" /> : <ErrorNote error={workspaces.error} />}
      {workspaces.data?.length === 0 && <p className="muted">No workspaces yet.</p>}
      {workspaces.data && workspaces.data.length > 0 && (
        <table>
          <thead><tr><th>Workspace</th><th>Runs on</th><th /></tr></thead>
          <tbody>
            {workspaces.data.map((w) => (
              <tr key={w.id}>
                <td>{w.attributes.name}</td>
                <td>
                  <select aria-label={`Agent pool of ${w.attributes.name}`} value={w.attributes['agent-pool-id'] ?? ''}
                    onChange={(e) => assign.mutate({ id: w.id, poolId: e.target.value || null })}>
                    <option value="">the server ({w.attributes['execution-mode'] === 'local' ? 'local' : 'remote'})</option>
                    {(pools.data ?? []).map((p) => <option key={p.id} value={p.id}>agent pool {p.attributes.name}</option>)}
                  </select>
                </td>
                <td><button type="button" className="danger small" onClick={() => confirmed(`Delete workspace ${w.attributes.name}`) && remove.mutate(w.id)}>Delete</button></td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Section>
  );
}
