import { useEffect, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { setPoolScope } from '../api/agents';
import { useSession } from '../api/session';
import { listWorkspaces } from '../api/workspaces';
import { idsOf } from '../api/load';
import type { AgentPoolJson } from '../../../daemon/src/contract/wire-jsonapi';
import { ErrorNote, Section, useAction } from './ui';
import { queryKeys } from '../api/query-keys';

/** Which workspaces may use a pool: all of the organization's, or a chosen few. */
export function PoolScope({ org, pool }: { org: string; pool: AgentPoolJson }) {
  const { api } = useSession();
  const workspaces = useQuery({ queryKey: queryKeys.workspaces(org), queryFn: () => listWorkspaces(api, org) });
  const [scoped, setScoped] = useState(pool.attributes['organization-scoped']);
  const [allowed, setAllowed] = useState<string[]>(idsOf(pool.relationships['allowed-workspaces']));
  useEffect(() => {
    setScoped(pool.attributes['organization-scoped']);
    setAllowed(idsOf(pool.relationships['allowed-workspaces']));
  }, [pool]);
  const save = useAction(() => setPoolScope(api, pool.id, scoped, allowed), [queryKeys.pool(pool.id), queryKeys.pools(org)]);
  const toggle = (id: string, on: boolean) => setAllowed(on ? [...allowed, id] : allowed.filter((w) => w !== id));
  const inUse = new Set(idsOf(pool.relationships.workspaces));
  return (
    <Section title="Who may use this pool">
      <ErrorNote error={save.error ?? workspaces.error} />
      <label className="check"><input type="checkbox" checked={scoped} onChange={(e) => setScoped(e.target.checked)} /> Every workspace of {org}</label>
      {!scoped && (
        <ul className="plain" aria-label="Allowed workspaces">
          {(workspaces.data ?? []).map((w) => (
            <li key={w.id}>
              <label className="check">
                <input type="checkbox" checked={allowed.includes(w.id)} onChange={(e) => toggle(w.id, e.target.checked)} /> {w.attributes.name}
                {inUse.has(w.id) && <span className="badge">runs here</span>}
              </label>
            </li>
          ))}
          {workspaces.data?.length === 0 && <li className="muted">{org} has no workspaces yet (create them on the organization page).</li>}
        </ul>
      )}
      <button type="button" onClick={() => save.mutate(undefined)} disabled={save.isPending}>Save</button>
    </Section>
  );
}
